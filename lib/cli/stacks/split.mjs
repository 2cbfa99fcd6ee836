// @ts-check
// Splits a template that passes the limit into nested stacks, one per route group (a model, a
// service, auth): each group's functions and what hangs off them (log group, permission,
// integration, route, an alarm on one of them) move into an `AWS::CloudFormation::Stack` child;
// the API, the tables, the WebSocket and stream functions stay in the root. A role only one group's
// functions use (lib/cli/stacks/function-roles.mjs) moves with them, its managed policies too: the
// root keeps the tables, and a role or two per model would eat the headroom it has left; roles
// of functions in no group or shared across groups (the realtime ones, the migration's, the
// logs-only one) stay.
//
// A reference never crosses a stack boundary as such: a child's reference to a root resource
// becomes a parameter of the child (named after the resource for a Ref, resource + attribute for
// a GetAtt) that the root passes; a reference to a moved resource from the root or from another
// child becomes an output of its child, read with `Fn::GetAtt [<Child>, Outputs.<name>]`. A
// DependsOn on the other side of the boundary becomes a DependsOn of (or on) the child stack.
//
// Every group gets its own child once the template splits, whatever its size: adding a model
// later adds a stack and moves nothing. (CloudFormation cannot move a named function from one
// stack to another in one update: it creates the new one before deleting the old.)
import { dependsOn, namedIds, rewriteReferences } from "./references.mjs";
import { pascal } from "./route-groups.mjs";
/** @import { CfnResource, CfnTemplate, CfnValue } from "../../core/serverless-host.ts" */
/** @import { Reference } from "./references.mjs" */

/** Resources that are the application's spine: never moved, whatever refers to them. */
const PINNED = new Set([
  "AWS::ApiGatewayV2::Api",
  "AWS::ApiGatewayV2::Stage",
  "AWS::ApiGatewayV2::Deployment",
  "AWS::ApiGateway::RestApi",
  "AWS::ApiGateway::Deployment",
  "AWS::ApiGateway::Stage",
  "AWS::DynamoDB::Table",
  "AWS::S3::Bucket",
  "AWS::S3::BucketPolicy",
  "AWS::CloudFormation::Stack",
]);

// CloudFormation's quotas per template.
const MAX_RESOURCES = 500;
const MAX_PARAMETERS = 200;
const MAX_OUTPUTS = 200;

/** The group of the alarms that watch only the root's resources (see assignGroups). */
export const ALARMS_GROUP = "cloudwatch alarms";

const alnum = (/** @type {string} */ text) => String(text).replace(/[^A-Za-z0-9]/g, "");

/** @param {CfnResource} resource */
function movable(resource) {
  return !PINNED.has(resource.Type) && resource.Condition === undefined && !JSON.stringify(resource.Properties ?? {}).includes('"Fn::If"');
}

/**
 * Which group each resource moves with: the groups' functions, then (to a fixed point) what refers
 * to exactly one group's resources, and what only one group's resources refer to.
 * @param {Record<string, CfnResource>} resources
 * @param {Map<string, string>} groupOfFunction
 * @returns {Map<string, string>}
 */
export function assignGroups(resources, groupOfFunction) {
  /** @type {Map<string, string>} */
  const assigned = new Map();
  for (const [id, group] of groupOfFunction) {
    const resource = resources[id];
    if (resource?.Type === "AWS::Lambda::Function" && movable(resource)) assigned.set(id, group);
  }
  const names = new Map(Object.entries(resources).map(([id, r]) => [id, [...namedIds(r)].filter((n) => n in resources)]));
  /** @type {Map<string, string[]>} */
  const namedBy = new Map(Object.keys(resources).map((id) => [id, []]));
  for (const [id, targets] of names) for (const target of targets) namedBy.get(target)?.push(id);

  for (let changed = true; changed;) {
    changed = false;
    for (const [id, resource] of Object.entries(resources)) {
      if (assigned.has(id) || !movable(resource)) continue;
      const out = new Set((names.get(id) ?? []).flatMap((n) => assigned.get(n) ?? []));
      /** @type {string | undefined} */
      let group;
      if (out.size === 1) [group] = out;
      else if (out.size === 0) {
        const users = namedBy.get(id) ?? [];
        const into = new Set(users.map((u) => assigned.get(u)));
        if (users.length > 0 && into.size === 1 && !into.has(undefined)) [group] = into;
      }
      if (group !== undefined) {
        assigned.set(id, group);
        changed = true;
      }
    }
  }
  // Alarms on the root's own resources (tables, the API, the stream, the custom metrics) go to a
  // stack of their own: a table adds two, and past the limit they are what would keep the root
  // over it. An alarm on functions of several groups stays in the root (its functions would all
  // become parameters of one stack, past CloudFormation's 200).
  for (const [id, resource] of Object.entries(resources)) {
    if (assigned.has(id) || !movable(resource) || resource.Type !== "AWS::CloudWatch::Alarm") continue;
    if ((names.get(id) ?? []).every((n) => !assigned.has(n))) assigned.set(id, ALARMS_GROUP);
  }
  return assigned;
}

/**
 * Moves each group into a child stack when the template has more than `limit` resources; changes
 * `template` in place and returns the children (none when it fits). A child may hold up to
 * `maxResources` (CloudFormation's own limit by default): `limit` says when to split, not how
 * small a model must be.
 * The children are typed as the root is: resources of the same shape move between them.
 * @template {CfnTemplate} T
 * @param {T} template
 * @param {{ groupOfFunction: Map<string, string>, limit: number, maxResources?: number, templateUrl: (file: string) => unknown, description?: (group: string) => string }} options
 * @returns {{ id: string, group: string, file: string, template: T & { Description: string } }[]}
 */
export function splitTemplate(template, { groupOfFunction, limit, maxResources = MAX_RESOURCES, templateUrl, description = (g) => `Routes of ${g}` }) {
  const resources = template.Resources;
  if (Object.keys(resources).length <= limit) return [];
  const assigned = assignGroups(resources, groupOfFunction);
  const groups = [...new Set(assigned.values())].sort();

  /** @typedef {{ id: string, group: string, file: string, resources: Record<string, CfnResource>, parameters: Map<string, CfnValue>, outputs: Map<string, { Value: CfnValue }>, dependsOn: Set<string> }} Child */
  /** @type {Map<string, Child>} */
  const children = new Map(
    groups.map((group) => {
      const id = `${pascal(group)}NestedStack`;
      if (id in resources) throw new Error(`Cannot split the stack: ${id} already names a resource`);
      const file = `cloudformation-template-nested-${alnum(group).toLowerCase() || "group"}.json`;
      return [group, /** @type {Child} */ ({ id, group, file, resources: {}, parameters: new Map(), outputs: new Map(), dependsOn: new Set() })];
    }),
  );
  const files = new Set();
  for (const child of children.values()) {
    if (files.has(child.file)) throw new Error(`Cannot split the stack: two route groups would write ${child.file}`);
    files.add(child.file);
  }
  for (const [id, group] of assigned) {
    const child = children.get(group);
    const resource = resources[id];
    if (child !== undefined && resource !== undefined) child.resources[id] = resource;
  }

  /**
   * How a resource of `owner` is read from elsewhere.
   * @param {Child} owner
   * @param {Reference} reference
   */
  const outputOf = (owner, reference) => {
    const name = reference.kind === "ref" ? reference.target : `${reference.target}${alnum(reference.attribute)}`;
    owner.outputs.set(name, { Value: reference.kind === "ref" ? { Ref: reference.target } : { "Fn::GetAtt": [reference.target, reference.attribute] } });
    return { name, value: { "Fn::GetAtt": [owner.id, `Outputs.${name}`] } };
  };

  /** The child a resource moves to, or undefined when it stays in the root. */
  const childOf = (/** @type {string} */ id) => {
    const group = assigned.get(id);
    return group === undefined ? undefined : children.get(group);
  };

  // Each child: references out of it become parameters, its DependsOn out of it the stack's.
  for (const child of children.values()) {
    for (const [id, resource] of Object.entries(child.resources)) {
      const rewritten = rewriteReferences(resource, (reference) => {
        if (reference.target in child.resources) return undefined;
        const owner = childOf(reference.target);
        const isRootName = reference.target in resources || reference.target in (template.Parameters ?? {});
        if (owner === undefined && !isRootName) return undefined; // not ours to resolve
        if (owner !== undefined) {
          const { name, value } = outputOf(owner, reference);
          child.parameters.set(name, value);
          child.dependsOn.add(owner.id);
          return { Ref: name };
        }
        const name = reference.kind === "ref" ? reference.target : `${reference.target}${alnum(reference.attribute)}`;
        child.parameters.set(name, reference.kind === "ref" ? { Ref: reference.target } : { "Fn::GetAtt": [reference.target, reference.attribute] });
        return { Ref: name };
      });
      const deps = dependsOn(resource);
      const inside = deps.filter((d) => d in child.resources);
      for (const d of deps) if (!(d in child.resources)) child.dependsOn.add(childOf(d)?.id ?? d);
      if (inside.length > 0) rewritten.DependsOn = inside;
      else delete rewritten.DependsOn;
      child.resources[id] = rewritten;
    }
    for (const name of child.parameters.keys()) {
      if (name in child.resources) throw new Error(`Cannot split the stack: parameter ${name} of ${child.id} names one of its resources`);
    }
  }

  // The root: moved resources leave; what refers to them reads their child's outputs.
  for (const id of assigned.keys()) delete resources[id];
  const fromRoot = (/** @type {Reference} */ reference) => {
    const owner = childOf(reference.target);
    if (owner === undefined) return undefined;
    const { value } = outputOf(owner, reference);
    return value;
  };
  for (const [id, resource] of Object.entries(resources)) {
    const rewritten = rewriteReferences(resource, fromRoot);
    const deps = dependsOn(resource);
    if (deps.length > 0) rewritten.DependsOn = [...new Set(deps.map((d) => childOf(d)?.id ?? d))];
    resources[id] = rewritten;
  }
  if (template.Outputs) template.Outputs = rewriteReferences(template.Outputs, fromRoot);

  /** @type {{ id: string, group: string, file: string, template: T & { Description: string } }[]} */
  const result = [];
  for (const child of children.values()) {
    const count = Object.keys(child.resources).length;
    if (count > maxResources)
      throw new Error(
        `The routes of ${child.group} alone need ${count} CloudFormation resources (limit ${maxResources}): give the model fewer operations, or group its routes (rest.packaging "model").`,
      );
    if (child.parameters.size > MAX_PARAMETERS || child.outputs.size > MAX_OUTPUTS) {
      throw new Error(
        `The nested stack of ${child.group} needs ${child.parameters.size} parameters and ${child.outputs.size} outputs (at most ${MAX_PARAMETERS} each)`,
      );
    }
    const dependencies = [...child.dependsOn].filter((d) => d in resources || [...children.values()].some((c) => c.id === d));
    resources[child.id] = {
      Type: "AWS::CloudFormation::Stack",
      ...(dependencies.length > 0 ? { DependsOn: dependencies.sort() } : {}),
      Properties: {
        TemplateURL: templateUrl(child.file),
        ...(child.parameters.size > 0 ? { Parameters: Object.fromEntries([...child.parameters].sort(([a], [b]) => (a < b ? -1 : 1))) } : {}),
      },
    };
    const childTemplate = {
      AWSTemplateFormatVersion: "2010-09-09",
      Description: description(child.group),
      ...(child.parameters.size > 0 ? { Parameters: Object.fromEntries([...child.parameters.keys()].sort().map((name) => [name, { Type: "String" }])) } : {}),
      Resources: child.resources,
      ...(child.outputs.size > 0 ? { Outputs: Object.fromEntries(child.outputs) } : {}),
    };
    result.push({
      id: child.id,
      group: child.group,
      file: child.file,
      template: /** @type {T & { Description: string }} */ (/** @type {unknown} */ (childTemplate)),
    });
  }
  return result;
}
