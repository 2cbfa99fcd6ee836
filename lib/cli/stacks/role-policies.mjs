// @ts-check
// IAM caps a role's inline policies at 10,240 characters in all (whitespace not counted), and the
// one role lists every table and index by ARN (least privilege, schema-cache/iam.json): about 40
// tables pass the cap, and the deploy fails on the role. Statements that do not fit move, split by
// resource where one is too large, into customer managed policies (6,144 characters each) attached
// to the same role. They grant exactly what the inline policy did; whatever uses the role
// (functions, stream mappings, which AWS checks against the role when they are created) waits
// for them.
import { namedIds } from "./references.mjs";
/** @import { CfnResource, CfnTemplate, CfnValue } from "../../core/serverless-host.ts" */

export const INLINE_LIMIT = 10_240;
export const MANAGED_LIMIT = 6_144;
/** Kept free for what the estimate cannot know exactly (a longer bucket name, a stream label). */
const MARGIN = 512;

// The longest partition, region and account an ARN can hold: the estimate errs on the large side.
/** @type {Record<string, string>} */
const PSEUDO = {
  "AWS::Partition": "aws-us-gov",
  "AWS::Region": "ap-southeast-2",
  "AWS::AccountId": "123456789012",
  "AWS::URLSuffix": "amazonaws.com.cn",
  "AWS::StackName": "x".repeat(128),
};
const UNKNOWN = "x".repeat(128);

/**
 * The text an intrinsic becomes once deployed, as long as it can be.
 * @param {CfnValue} value
 * @param {Record<string, CfnResource>} resources
 * @returns {unknown}
 */
function deployed(value, resources) {
  if (Array.isArray(value)) return value.map((v) => deployed(v, resources));
  if (value === null || typeof value !== "object") return value;
  const [fn, arg] = Object.entries(value)[0] ?? [];
  if (fn === "Ref") return PSEUDO[arg] ?? resources[arg]?.Properties?.TableName ?? UNKNOWN;
  if (fn === "Fn::GetAtt") {
    const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(".");
    const table = resources[id]?.Properties?.TableName;
    if (table === undefined) return UNKNOWN;
    const arn = `arn:${PSEUDO["AWS::Partition"]}:dynamodb:${PSEUDO["AWS::Region"]}:${PSEUDO["AWS::AccountId"]}:table/${table}`;
    return attribute === "StreamArn" ? `${arn}/stream/2026-01-01T00:00:00.000` : arn;
  }
  if (fn === "Fn::Join") return arg[1].map((/** @type {CfnValue} */ v) => deployed(v, resources)).join(arg[0]);
  if (fn === "Fn::Sub") {
    const text = Array.isArray(arg) ? arg[0] : arg;
    return String(text).replace(/\$\{([^}!]+)\}/g, (_, /** @type {string} */ name) => PSEUDO[name] ?? UNKNOWN);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deployed(v, resources)]));
}

/**
 * The characters a policy document (or statement) counts against IAM's limits, at most.
 * @param {unknown} document
 * @param {Record<string, CfnResource>} resources
 * @returns {number}
 */
export function policySize(document, resources) {
  return JSON.stringify(deployed(document, resources)).replace(/\s/g, "").length;
}

/** @typedef {{ Resource?: unknown, [key: string]: unknown }} Statement */

/**
 * A statement cut into pieces of at most `room` characters, by its resource list.
 * @param {Statement} statement
 * @param {Record<string, CfnResource>} resources
 * @param {number} room
 * @returns {Statement[]}
 */
function pieces(statement, resources, room) {
  if (policySize(statement, resources) <= room || !Array.isArray(statement.Resource) || statement.Resource.length < 2) return [statement];
  const half = Math.ceil(statement.Resource.length / 2);
  return [
    ...pieces({ ...statement, Resource: statement.Resource.slice(0, half) }, resources, room),
    ...pieces({ ...statement, Resource: statement.Resource.slice(half) }, resources, room),
  ];
}

/**
 * Moves what does not fit of each role's inline policies into managed policies; changes
 * `template` in place and returns the ids of the policies it added.
 * @param {CfnTemplate} template
 * @returns {string[]}
 */
export function fitRolePolicies(template) {
  const resources = template.Resources;
  /** @type {string[]} */
  const added = [];
  for (const [roleId, role] of Object.entries(resources)) {
    if (role.Type !== "AWS::IAM::Role" || !Array.isArray(role.Properties?.Policies)) continue;
    if (
      policySize(
        role.Properties.Policies.map((/** @type {{ PolicyDocument: unknown }} */ p) => p.PolicyDocument),
        resources,
      ) <=
      INLINE_LIMIT - MARGIN
    )
      continue;

    // Inline: statements in order while they fit; the rest, in pieces, fill managed policies.
    /** @type {Statement[]} */
    const overflow = [];
    let used = 0;
    for (const policy of role.Properties.Policies) {
      /** @type {Statement[]} */
      const kept = [];
      for (const statement of policy.PolicyDocument.Statement) {
        const size = policySize(statement, resources) + 1;
        if (overflow.length === 0 && used + size <= INLINE_LIMIT - MARGIN - 200) {
          kept.push(statement);
          used += size;
        } else overflow.push(...pieces(statement, resources, MANAGED_LIMIT - MARGIN));
      }
      policy.PolicyDocument.Statement = kept;
    }
    role.Properties.Policies = role.Properties.Policies.filter(
      (/** @type {{ PolicyDocument: { Statement: unknown[] } }} */ p) => p.PolicyDocument.Statement.length > 0,
    );

    /** @type {Statement[][]} */
    const documents = [];
    for (const statement of overflow) {
      const last = documents.at(-1);
      if (last && policySize({ Version: "2012-10-17", Statement: [...last, statement] }, resources) <= MANAGED_LIMIT - MARGIN) last.push(statement);
      else documents.push([statement]);
    }
    documents.forEach((statements, i) => {
      const id = `${roleId}Policy${i + 1}`;
      resources[id] = {
        Type: "AWS::IAM::ManagedPolicy",
        Properties: { Roles: [{ Ref: roleId }], PolicyDocument: { Version: "2012-10-17", Statement: statements } },
      };
      added.push(id);
    });
    // What uses the role waits until it holds every grant.
    for (const resource of Object.values(resources)) {
      if (resource.Type === "AWS::IAM::ManagedPolicy" || !namedIds(resource).has(roleId)) continue;
      const deps = resource.DependsOn === undefined ? [] : [resource.DependsOn].flat();
      resource.DependsOn = [...new Set([...deps, ...added.filter((a) => a.startsWith(`${roleId}Policy`))])];
    }
  }
  return added;
}
