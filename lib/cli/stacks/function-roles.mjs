// @ts-check
// Least privilege per function (docs/deploying.md, "Roles"): the framework compiles one role for
// every function; this gives each function the role schema-cache/roles.json names for it (rendered
// from the models and routes by lib/cli/roles.ts), so a public read cannot write, only the auth
// functions touch the auth tables and send mail, and only the WebSocket and stream functions post
// to connections.
//
// Each role is the framework's, narrowed: the same trust policy, path, managed policies and log
// statements, the statements its kind is granted, and the statements the framework derived from
// events (stream reads, the failure queue, posting to connections) for the functions that have
// those events, and whatever serverless.yml's `provider.iam.role.statements` grants (meant for
// every function, so every role keeps it; the sample declares none). A function
// that roles.json does not name (one added by hand to serverless.yml) keeps the framework's role,
// which then grants its logs and its events and no table. Each function's `Properties.Role` is
// `Fn::GetAtt [<Role>, Arn]`, which later hooks read to find it.

/** @import { CfnResource, CfnTemplate, ServerlessEvent } from "../../core/serverless-host.ts" */
/** @typedef {{ Action?: string | string[], [key: string]: unknown }} Statement */

export const FRAMEWORK_ROLE = "IamRoleLambdaExecution";

const EVENT_ACTIONS = /^(dynamodb:(GetRecords|GetShardIterator|DescribeStream|ListStreams)|sqs:|kinesis:)/;

const actionsOf = (/** @type {Statement} */ statement) => [statement.Action ?? []].flat();
const isLogs = (/** @type {Statement} */ statement) => actionsOf(statement).length > 0 && actionsOf(statement).every((a) => a.startsWith("logs:"));
const isEvent = (/** @type {Statement} */ statement) => actionsOf(statement).some((a) => EVENT_ACTIONS.test(a));
/** The framework grants posting to connections for websocket events (scoped to this API by the plugin). */
const isPosting = (/** @type {Statement} */ statement) => actionsOf(statement).includes("execute-api:ManageConnections");
/** @type {<T>(value: T) => T} */
const clone = (value) => (value === undefined ? value : JSON.parse(JSON.stringify(value)));
const roleArn = (/** @type {string} */ id) => ({ "Fn::GetAtt": [id, "Arn"] });
const same = (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Gives each function its role; changes `template` in place and returns the roles it added.
 * @param {CfnTemplate} template the compiled template, events included
 * @param {Record<string, { handler?: string, events?: ServerlessEvent[] }>} functions `service.functions`
 * @param {{ roles: Record<string, object[]>, functions: Record<string, string>, handlers: Record<string, string> }} map schema-cache/roles.json
 * @param {(name: string) => string} logicalIdOf a function's name -> its logical id
 * @returns {string[]}
 */
export function assignFunctionRoles(template, functions, map, logicalIdOf) {
  const resources = template.Resources;
  const framework = resources[FRAMEWORK_ROLE];
  // provider.iam.role set to an existing role: the author chose, nothing here to narrow.
  if (framework?.Type !== "AWS::IAM::Role") return [];
  /** @type {{ PolicyName?: string, PolicyDocument: { Statement: Statement[] } }[]} */
  const policies = framework.Properties?.Policies ?? [];
  const statements = policies.flatMap((p) => p.PolicyDocument.Statement);
  const logs = statements.filter(isLogs);
  const events = statements.filter(isEvent);
  const posts = statements.filter(isPosting);
  // What serverless.yml's `provider.iam.role.statements` asks for every function: every role keeps it.
  const authored = statements.filter((s) => !isLogs(s) && !isEvent(s) && !isPosting(s));

  /** @type {string[]} */
  const added = [];
  /** @type {Map<string, string>} */
  const roleOfFunction = new Map();
  for (const [name, fn] of Object.entries(functions ?? {})) {
    const roleId = map.functions[name] ?? (fn.handler === undefined ? undefined : map.handlers[fn.handler]);
    const functionId = logicalIdOf(name);
    const resource = resources[functionId];
    if (roleId === undefined || resource?.Type !== "AWS::Lambda::Function") continue;
    // A function given its own role in serverless.yml keeps it.
    if (!same(resource.Properties?.Role, roleArn(FRAMEWORK_ROLE))) continue;
    if (roleId in resources && !added.includes(roleId)) throw new Error(`Cannot give ${name} its role: ${roleId} already names a resource`);
    if (!added.includes(roleId)) {
      const { AssumeRolePolicyDocument, Path, ManagedPolicyArns, PermissionsBoundary, Tags } = framework.Properties ?? {};
      resources[roleId] = {
        Type: "AWS::IAM::Role",
        Properties: {
          AssumeRolePolicyDocument: clone(AssumeRolePolicyDocument),
          ...(Path === undefined ? {} : { Path }),
          ...(ManagedPolicyArns === undefined ? {} : { ManagedPolicyArns: clone(ManagedPolicyArns) }),
          ...(PermissionsBoundary === undefined ? {} : { PermissionsBoundary: clone(PermissionsBoundary) }),
          ...(Tags === undefined ? {} : { Tags: clone(Tags) }),
          Policies: [
            {
              PolicyName: clone(policies[0]?.PolicyName ?? "lambda"),
              PolicyDocument: { Version: "2012-10-17", Statement: [...clone(logs), ...clone(authored), ...clone(map.roles[roleId] ?? [])] },
            },
          ],
        },
      };
      added.push(roleId);
    }
    // What the framework granted for this function's events (a stream's reads, its failure queue).
    const has = (/** @type {string[]} */ ...kinds) => (fn.events ?? []).some((e) => e && typeof e === "object" && kinds.some((k) => k in e));
    /** @type {{ Statement: Statement[] }} */
    const document = resources[roleId]?.Properties?.Policies[0].PolicyDocument;
    const add = (/** @type {Statement} */ statement) => {
      if (!document.Statement.some((s) => same(s, statement))) document.Statement.push(clone(statement));
    };
    if (has("stream", "sqs", "kinesis")) events.forEach(add);
    // roles.json already scopes posting for the functions that post; the framework's grant is for one it does not know.
    if (has("websocket") && !document.Statement.some(isPosting)) posts.forEach(add);
    (resource.Properties ??= {}).Role = roleArn(roleId);
    roleOfFunction.set(functionId, roleId);
  }

  const stillUsed = Object.values(resources).some((r) => r.Type === "AWS::Lambda::Function" && same(r.Properties?.Role, roleArn(FRAMEWORK_ROLE)));
  if (added.length > 0 && !stillUsed) {
    // The framework makes everything wait for its role; an event source mapping needs its
    // function's role to exist (AWS checks the stream permissions when it is created).
    for (const resource of Object.values(resources)) {
      const deps = resource.DependsOn === undefined ? undefined : [resource.DependsOn].flat();
      if (!deps?.includes(FRAMEWORK_ROLE)) continue;
      const fnId = resource.Properties?.FunctionName?.["Fn::GetAtt"]?.[0];
      const replacement = roleOfFunction.get(fnId);
      const next = [...new Set(deps.flatMap((d) => (d !== FRAMEWORK_ROLE ? [d] : replacement ? [replacement] : [])))];
      if (next.length > 0) resource.DependsOn = next;
      else delete resource.DependsOn;
    }
    if (!referenced(resources, FRAMEWORK_ROLE)) delete resources[FRAMEWORK_ROLE];
  }
  return added;
}

/**
 * @param {Record<string, CfnResource>} resources
 * @param {string} id
 */
function referenced(resources, id) {
  return Object.entries(resources).some(([rid, r]) => rid !== id && JSON.stringify(r).includes(`"${id}"`));
}

/**
 * Each role's log statements, narrowed to the log groups its functions write (their shared route
 * group's, or their own): run once the log groups are shared. A role used by no function, or by a
 * function whose log group is not a plain name, keeps the framework's statements.
 * @param {CfnTemplate} template
 */
export function narrowLogStatements(template) {
  const resources = template.Resources;
  for (const [roleId, role] of Object.entries(resources)) {
    if (role.Type !== "AWS::IAM::Role") continue;
    /** @type {Set<string>} */
    const names = new Set();
    let known = true;
    for (const fn of Object.values(resources)) {
      if (fn.Type !== "AWS::Lambda::Function" || !same(fn.Properties?.Role, roleArn(roleId))) continue;
      const ref = fn.Properties?.LoggingConfig?.LogGroup?.Ref;
      const name =
        ref === undefined
          ? typeof fn.Properties?.FunctionName === "string"
            ? `/aws/lambda/${fn.Properties?.FunctionName}`
            : undefined
          : resources[ref]?.Properties?.LogGroupName;
      if (typeof name === "string" && !name.includes("*")) names.add(name);
      else known = false;
    }
    if (!known || names.size === 0) continue;
    for (const policy of role.Properties?.Policies ?? []) {
      for (const statement of policy.PolicyDocument.Statement) {
        if (!isLogs(statement)) continue;
        const sample = JSON.stringify(statement.Resource);
        // `log-group:<name>:*` (the group's streams) or `:*:*` (its events), as the framework writes them.
        const suffix = sample.includes(":*:*") ? ":*:*" : ":*";
        statement.Resource = [...names]
          .sort()
          .map((name) => ({ "Fn::Sub": `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${name}${suffix}` }));
      }
    }
  }
}
