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
    // The framework's own log statements: `/aws/lambda/<service>-<stage>*` and its streams.
    const logs = `${own}logs${here}log-group:/aws/lambda/${logGroupPrefix}*`;
    return arg === `${logs}:*` || arg === `${logs}:*:*`;
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
