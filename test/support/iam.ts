/**
 * Which IAM statements of a packaged CloudFormation template reach beyond the stack itself. A
 * statement passes when every action names one operation (no `*`, no `dynamodb:*`) and every
 * resource is one of the stack's own: an attribute of a resource the template declares (a table, a
 * stream, a queue), such an ARN with a `/index/*` suffix, this stack's WebSocket API, or this
 * service and stage's own log groups. A literal ARN, `*`, or a `*:*:*` account/region fails.
 */
export interface Statement {
  Effect?: string;
  Action?: string | string[];
  Resource?: unknown;
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

export function statementsOf(template: Template): Statement[] {
  const statements: Statement[] = [];
  for (const resource of Object.values(template.Resources)) {
    const properties = resource.Properties ?? {};
    if (resource.Type === "AWS::IAM::Role") {
      for (const policy of (properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]) statements.push(...policy.PolicyDocument.Statement);
    } else if (resource.Type === "AWS::IAM::Policy" || resource.Type === "AWS::IAM::ManagedPolicy") {
      statements.push(...(properties.PolicyDocument as { Statement: Statement[] }).Statement);
    }
  }
  return statements;
}

function ownResource(resource: unknown, template: Template, logGroupPrefix: string): boolean {
  if (typeof resource !== "object" || resource === null) return false;
  const entries = Object.entries(resource);
  if (entries.length !== 1) return false;
  const [fn, arg] = entries[0] as [string, unknown];
  if (fn === "Fn::GetAtt") {
    const [logicalId, attribute] = (Array.isArray(arg) ? arg : String(arg).split(".")) as [string, string];
    return logicalId in template.Resources && ["Arn", "StreamArn"].includes(attribute);
  }
  if (fn === "Fn::Join" && Array.isArray(arg) && arg[0] === "") {
    const parts = arg[1] as unknown[];
    return parts.length === 2 && ownResource(parts[0], template, logGroupPrefix) && parts[1] === "/index/*";
  }
  if (fn === "Fn::Sub" && typeof arg === "string") {
    const own = "arn:${AWS::Partition}:";
    const here = ":${AWS::Region}:${AWS::AccountId}:";
    if (arg === `${own}execute-api${here}\${WebsocketsApi}/*/*/@connections/*`) return true;
    // One named SES identity (the configured sender or its domain), never `identity/*`.
    if (arg.startsWith(`${own}ses${here}identity/`) && /^[^*\s/]+$/.test(arg.slice(`${own}ses${here}identity/`.length))) return true;
    // One named SSM parameter (a secret the stage reads, lib/cli/secrets), never a path wildcard.
    if (arg.startsWith(`${own}ssm${here}parameter/`) && /^[A-Za-z0-9_.\-/]+$/.test(arg.slice(`${own}ssm${here}parameter/`.length))) return true;
    // The framework's own log statements: `/aws/lambda/<service>-<stage>*` and its streams, or
    // narrowed to one function's (`-<name>`) or one route group's (`/<group>`) log group.
    const logs = `${own}logs${here}log-group:/aws/lambda/${logGroupPrefix}`;
    if (!arg.startsWith(logs)) return false;
    const rest = arg.slice(logs.length);
    return ["*:*", "*:*:*"].includes(rest) || /^[-/][^*:\s]+:\*(:\*)?$/.test(rest);
  }
  return false;
}

/** The statements that grant more than the stack's own resources, with the reason. */
export function overlyBroad(template: Template, logGroupPrefix: string): { statement: Statement; reason: string }[] {
  const found: { statement: Statement; reason: string }[] = [];
  for (const statement of statementsOf(template)) {
    const actions = [statement.Action ?? []].flat();
    const wild = actions.filter((a) => a === "*" || a.endsWith(":*") || a.includes("*"));
    if (wild.length > 0) found.push({ statement, reason: `wildcard action ${wild.join(", ")}` });
    const resources = [statement.Resource ?? []].flat();
    if (resources.length === 0) found.push({ statement, reason: "no resource" });
    for (const resource of resources) {
      if (!ownResource(resource, template, logGroupPrefix)) found.push({ statement, reason: `resource beyond the stack: ${JSON.stringify(resource)}` });
    }
  }
  return found;
}

/** A grant as the template says it: one action on one resource (a table, an index, an ARN pattern). */
export interface Grant {
  action: string;
  /** `table:<TableName>`, `index:<TableName>` (every index of it), `stream:<TableName>`, or the resource's JSON. */
  resource: string;
}

interface StackLike {
  id: string;
  template: { Parameters?: Record<string, unknown>; Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown }> };
}

/** A Ref to a nested stack's parameter, resolved to what the root passes for it. */
function throughParameter(value: unknown, stack: StackLike, root: StackLike): unknown {
  if (stack.id === "root" || typeof value !== "object" || value === null || !("Ref" in value)) return value;
  const name = (value as { Ref: string }).Ref;
  if (!(name in (stack.template.Parameters ?? {}))) return value;
  const parameters = (root.template.Resources[stack.id]?.Properties?.Parameters ?? {}) as Record<string, unknown>;
  return parameters[name];
}

/** The table a resource of a statement names, by TableName, with `index:` for its indexes. */
function grantResource(resource: unknown, stack: StackLike, root: StackLike): string {
  const value = throughParameter(resource, stack, root);
  if (typeof value === "object" && value !== null) {
    const [fn, arg] = Object.entries(value)[0] as [string, unknown];
    if (fn === "Fn::GetAtt") {
      const [id, attribute] = (Array.isArray(arg) ? arg : String(arg).split(".")) as [string, string];
      const table = root.template.Resources[id]?.Properties?.TableName;
      if (typeof table === "string") return `${attribute === "StreamArn" ? "stream" : "table"}:${table}`;
    }
    if (fn === "Fn::Join" && Array.isArray(arg) && (arg[1] as unknown[])[1] === "/index/*") {
      return grantResource((arg[1] as unknown[])[0], stack, root).replace(/^table:/, "index:");
    }
  }
  return JSON.stringify(value);
}

/** The role a function runs with: its logical id and the stack that declares it. */
export function roleOf(functionId: string, stack: StackLike, stacks: StackLike[]): { id: string; stack: StackLike } {
  const root = stacks.find((s) => s.id === "root") as StackLike;
  const role = stack.template.Resources[functionId]?.Properties?.Role;
  let value = role;
  let where = stack;
  if (typeof value === "object" && value !== null && "Ref" in value) {
    value = throughParameter(value, stack, root);
    where = root;
  }
  const getAtt = (value as { "Fn::GetAtt"?: [string, string] } | undefined)?.["Fn::GetAtt"];
  if (!getAtt || getAtt[1] !== "Arn") throw new Error(`${functionId}: its Role is neither a role's Arn nor a parameter carrying one: ${JSON.stringify(role)}`);
  const [id] = getAtt;
  if (where.template.Resources[id]?.Type === "AWS::IAM::Role") return { id, stack: where };
  // A role of a nested stack read from the root: `Fn::GetAtt [<Stack>, Outputs.<name>]`.
  throw new Error(`${functionId}: role ${id} is not declared in ${where.id}`);
}

/** Every (action, resource) a role grants: its inline policies and the managed policies attached to it. */
export function grantsOf(roleId: string, stack: StackLike, stacks: StackLike[]): Grant[] {
  const root = stacks.find((s) => s.id === "root") as StackLike;
  const resources = stack.template.Resources;
  const statements: Statement[] = [];
  for (const policy of (resources[roleId]?.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[])
    statements.push(...policy.PolicyDocument.Statement);
  for (const resource of Object.values(resources)) {
    if (resource.Type !== "AWS::IAM::ManagedPolicy") continue;
    const roles = (resource.Properties?.Roles ?? []) as unknown[];
    if (roles.some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })))
      statements.push(...(resource.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  const grants: Grant[] = [];
  for (const statement of statements) {
    if (statement.Effect !== "Allow") continue;
    for (const action of [statement.Action ?? []].flat()) {
      for (const resource of [statement.Resource ?? []].flat()) grants.push({ action, resource: grantResource(resource, stack, root) });
    }
  }
  return grants;
}

const WRITES = new Set([
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:PartiQLInsert",
  "dynamodb:PartiQLUpdate",
  "dynamodb:PartiQLDelete",
]);
export const isWrite = (action: string): boolean => WRITES.has(action);
const AUTH_TABLE = /^(table|index):.*auth-(idents|refresh|idp-states|sessions)$/;
const SESSIONS_BY_KEY = (g: Grant) => /^table:.*auth-sessions$/.test(g.resource) && ["dynamodb:GetItem", "dynamodb:BatchGetItem"].includes(g.action);

/** Every function of every stack with its handler, role and what the role grants. */
export function functionGrants(stacks: StackLike[]): { stack: string; id: string; name: string; handler: string; role: string; grants: Grant[] }[] {
  const out: { stack: string; id: string; name: string; handler: string; role: string; grants: Grant[] }[] = [];
  for (const stack of stacks) {
    for (const [id, resource] of Object.entries(stack.template.Resources)) {
      if (resource.Type !== "AWS::Lambda::Function") continue;
      const role = roleOf(id, stack, stacks);
      out.push({
        stack: stack.id,
        id,
        name: String(resource.Properties?.FunctionName),
        handler: String(resource.Properties?.Handler),
        role: `${role.stack.id}/${role.id}`,
        grants: grantsOf(role.id, role.stack, stacks),
      });
    }
  }
  return out;
}

/**
 * What a function's role grants that its kind never needs: a write to a record read's function, an
 * auth table (beyond reading a session by key, which tells who is calling) outside the auth and
 * migration functions, posting to connections outside the WebSocket and stream functions, mail
 * outside the auth function, any table to GraphiQL's.
 */
export function kindViolations(stacks: StackLike[]): string[] {
  const problems: string[] = [];
  for (const { stack, id, handler, role, grants } of functionGrants(stacks)) {
    const where = `${stack}/${id} (${handler}, ${role})`;
    const auth = ["functions/auth.handler", "functions/auth-session.handler", "functions/migrate.handler"].includes(handler);
    for (const g of grants) {
      if (handler === "functions/rest-read.handler" && isWrite(g.action)) problems.push(`${where}: a record read may ${g.action} ${g.resource}`);
      if (!auth && AUTH_TABLE.test(g.resource) && !SESSIONS_BY_KEY(g)) problems.push(`${where}: ${g.action} on the auth table ${g.resource}`);
      if (g.action === "execute-api:ManageConnections" && !["functions/ws.handler", "functions/stream.handler", "functions/fanout.handler"].includes(handler))
        problems.push(`${where}: posts to WebSocket connections`);
      if (g.action.startsWith("ses:") && handler !== "functions/auth.handler") problems.push(`${where}: ${g.action}`);
      if (handler === "functions/graphiql.handler" && g.action.startsWith("dynamodb:")) problems.push(`${where}: ${g.action} ${g.resource}`);
    }
  }
  return problems;
}
