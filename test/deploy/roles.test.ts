import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk, publicKeySet } from "../../lib/auth/index.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { recordAwsCalls, type Call } from "../support/aws-calls.ts";
import { functionGrants, isWrite, kindViolations, type Grant } from "../support/iam.ts";
import { loadStacks, type Stack } from "../support/stacks.ts";
import { awsStub, driveEveryFunction, httpEvent, lambdaContext, streamEvent } from "./role-drive.ts";

// Least privilege, checked against the code: the sample is packaged once, every function is run in
// process against DynamoDB Local through the routes packaging gave it, every AWS call it makes is
// recorded at the SDK's send, and each recorded (action, table or index) must be granted to that
// function's role in the packaged template, while what the role grants beyond what its function
// was seen doing stays within the margin docs/deploying.md ("Roles") states.

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
// Packaging rewrites .esbuild/, which a running `npm start` serves from: this file packages a copy
// of the project (and runs the project's own functions), so it runs beside any start.
const copy = new ProjectCopy("roles");
const scratch = await mkdtemp(join(tmpdir(), "roles-"));
const stub = await awsStub();
const prefix = process.env.TABLE_PREFIX ?? "blog-test-";

let stacks: Stack[] = [];
/** function name -> its logical id and stack, handler. */
const functions = new Map<string, { id: string; stack: Stack; handler: string }>();
/** `METHOD /path/{param}` (or `$default`) -> function name. */
const routes = new Map<string, string>();
let recorded = new Map<string, Call[]>();
const invoked = new Set<string>();
let statuses: Record<string, string> = {};

beforeAll(async () => {
  const out = join(scratch, "out");
  await run(
    join(root, "node_modules/.bin/serverless"),
    [
      "package",
      "--stage",
      "ci",
      "--package",
      out,
      // The secrets by their SSM parameters' names, the signing key's public set (docs/deploying.md, "Secrets").
      "--param",
      "appSecretParameter=/blog/ci/app-secret",
      "--param",
      "authSigningKeyParameter=/blog/ci/auth-signing-key",
      "--param",
      "idpClientSecretParameter=/blog/ci/idp-client-secret",
      "--param",
      `authPublicKeys=${JSON.stringify(publicKeySet(JSON.stringify(generateSigningJwk())))}`,
      "--param",
      "idpIssuer=https://accounts.example.com",
      "--param",
      "idpClientId=ci-client",
      "--param",
      "publicUrl=https://api.example.com",
      "--param",
      "alarmEmail=ops@example.com",
      // Every function the sample has, GraphiQL and the test service's included, so that each is driven.
      "--param",
      "graphiql=true",
      "--param",
      "testRoutes=true",
    ],
    { cwd: copy.dir, env: { ...process.env, ALLOW_TEST_USER: "false" }, maxBuffer: 16 * 1024 * 1024 },
  );
  stacks = await loadStacks(out);
  mapFunctions();

  // The functions read these at their cold start: mail and connection posts go to the stub.
  process.env.AWS_ENDPOINT_URL_SESV2 = stub.url;
  process.env.WEBSOCKET_MANAGEMENT_ENDPOINT = stub.url;
  process.env.PUBLIC_URL = "https://api.example.com";
  process.env.PASSWORD_COST_LN ??= "10";
  let current: string | undefined;
  const recorder = recordAwsCalls(() => current);
  const modules = new Map<string, (event: unknown, context: unknown) => Promise<unknown>>();
  const handlerOf = async (handler: string) => {
    const file = handler.replace(/\.handler$/, ".ts");
    if (!modules.has(file)) modules.set(file, ((await import(join(root, file))) as { handler: (e: unknown, c: unknown) => Promise<unknown> }).handler);
    return modules.get(file) as (e: unknown, c: unknown) => Promise<unknown>;
  };
  const invoke = async (fn: string, event: unknown) => {
    const target = functions.get(fn);
    if (!target) throw new Error(`no function ${fn}`);
    const handler = await handlerOf(target.handler);
    current = fn;
    invoked.add(fn);
    try {
      return await handler(event, { ...lambdaContext(), getRemainingTimeInMillis: () => 120_000 });
    } finally {
      current = undefined;
    }
  };
  const byHandler = (handler: string) => [...functions].find(([, f]) => f.handler === handler)?.[0] as string;
  try {
    statuses = await driveEveryFunction(
      {
        http: async (method, path, options = {}) => {
          const fn = routeFunction(method, path.split("?")[0] as string);
          const headers: Record<string, string> = { host: "api.example.com", origin: "https://api.example.com" };
          if (options.token) headers.authorization = `Bearer ${options.token}`;
          const result = (await invoke(fn, httpEvent(method, path, { body: options.body, headers }))) as { statusCode: number; body?: string };
          let body: unknown;
          try {
            body = result.body ? JSON.parse(result.body) : undefined;
          } catch {
            body = result.body;
          }
          return { status: result.statusCode, body };
        },
        ws: (routeKey, connectionId, body, headers) =>
          invoke(byHandler("functions/ws.handler"), {
            requestContext: {
              routeKey,
              connectionId,
              connectedAt: Date.now(),
              requestTimeEpoch: Date.now(),
              domainName: "abc123.execute-api.us-east-1.amazonaws.com",
              stage: "ci",
              apiId: "abc123",
            },
            ...(headers ? { headers } : {}),
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
        stream: (table, eventName, item) => invoke(byHandler("functions/stream.handler"), streamEvent(table, eventName, item)),
        migrate: () => invoke(byHandler("functions/migrate.handler"), { dryRun: true }),
        fanout: (body) => invoke(byHandler("functions/fanout.handler"), { Records: [sqsRecord(body)] }),
        gone: (connectionId) => void stub.gone.add(connectionId),
      },
      stub.mails,
      prefix,
    );
  } finally {
    recorder.stop();
  }
  recorded = recorder.calls;
}, 600_000);

afterAll(async () => {
  copy.remove();
  stub.server.close();
  await rm(scratch, { recursive: true, force: true });
});

/** A message of the fan-out queue as Lambda's SQS event source hands it to the worker. */
function sqsRecord(body: string) {
  return {
    messageId: "m1",
    receiptHandle: "r1",
    body,
    messageAttributes: {},
    md5OfBody: "",
    eventSource: "aws:sqs",
    awsRegion: "us-east-1",
    eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:blog-ci-fanout.fifo",
    attributes: { MessageGroupId: "g", ApproximateReceiveCount: "1", SentTimestamp: "0", SenderId: "s", ApproximateFirstReceiveTimestamp: "0" },
  };
}

/** Every function of every stack by its serverless name, and the HTTP routes that reach each. */
function mapFunctions(): void {
  for (const stack of stacks) {
    const resources = stack.template.Resources;
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type !== "AWS::Lambda::Function") continue;
      const name = String(resource.Properties.FunctionName).replace(/^blog-ci-/, "");
      functions.set(name, { id, stack, handler: String(resource.Properties.Handler) });
    }
    for (const resource of Object.values(resources)) {
      if (resource.Type !== "AWS::ApiGatewayV2::Route" || !JSON.stringify(resource.Properties.Target).includes("HttpApiIntegration")) continue;
      const integration = JSON.stringify(resource.Properties.Target).match(/"Ref":"([^"]+)"/)?.[1] as string;
      const uri = JSON.stringify(resources[integration]?.Properties.IntegrationUri);
      const fnId = uri.match(/"Fn::GetAtt":\["([^"]+)"/)?.[1];
      const fn = [...functions].find(([, f]) => f.id === fnId && f.stack === stack)?.[0];
      if (fn) routes.set(String(resource.Properties.RouteKey), fn);
    }
  }
}

function routeFunction(method: string, path: string): string {
  for (const [key, fn] of routes) {
    const [m, template] = key.split(" ") as [string, string | undefined];
    if (m !== method || template === undefined) continue;
    const pattern = new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    if (pattern.test(path)) return fn;
  }
  const fallback = routes.get("$default");
  if (!fallback) throw new Error(`no route for ${method} ${path}`);
  return fallback;
}

/** A recorded table name as the packaged template names it (`blog-test-Post` -> `blog-ci-Post`). */
const packagedName = (table: string): string => `blog-ci-${table.startsWith(prefix) ? table.slice(prefix.length) : table}`;

// PartiQLSelect is no member: a role may have it only on a table one of its functions was seen using it on.
const READ_FAMILY = new Set(["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:Scan"]);
const family = (action: string): string => (READ_FAMILY.has(action) ? "read" : isWrite(action) ? "write" : action);
/**
 * The framework's own statements: logs, a stream function's stream reads and failure queue, the
 * migration's failure destination, and the secrets a function reads at its cold start (from SSM,
 * which in-process runs replace with the environment; test/deploy/package.test.ts checks that
 * each role may read exactly its functions' parameters).
 */
const FRAMEWORK = /^(logs:|sqs:|ssm:GetParameters?$|kms:Decrypt$|dynamodb:(GetRecords|GetShardIterator|DescribeStream|ListStreams)$)/;

/** Whether `grants` allow the call: its table for a call on the table, the table's indexes for one on an index. */
function allows(grants: Grant[], call: Call): boolean {
  if (call.table === undefined) {
    if (call.action === "execute-api:ManageConnections") return grants.some((g) => g.action === call.action && g.resource.includes("/@connections/*"));
    if (call.action === "ses:SendEmail") return grants.some((g) => g.action === call.action && g.resource.includes(":ses:"));
    return false;
  }
  const resource = `${call.index ? "index" : "table"}:${packagedName(call.table)}`;
  return grants.some((g) => g.action === call.action && g.resource === resource);
}

/**
 * What a role may grant that no function of it was seen using in the drive, and why
 * (docs/deploying.md, "Roles", states the same):
 * - the rest of a family on a table it was seen using: which read a request makes (by key, Query
 *   on the table or an index, Scan, a PartiQL SELECT) depends on its filter, which write on its
 *   operation, so a table's reads (writes) are granted together, on the table and its indexes;
 * - reading a session by key, to every function that tells who is calling (the drive's calls
 *   without a cookie or token read none);
 * - the migration's writes (the drive runs it dry);
 * - the Idp's used-states table, written when an OpenID login completes (no provider runs here);
 * - deleting an ident, and reading a user's sessions through PartiQL (unlinking needs a second
 *   ident, which only an Idp login links: the drive's unlink of the only ident is refused, and
 *   revokes no session).
 */
function margin(role: string, grant: Grant, seen: Set<string>): boolean {
  const table = grant.resource.replace(/^(table|index):/, "");
  if (seen.has(`${family(grant.action)} ${table}`)) return true;
  if (/auth-sessions$/.test(table) && ["dynamodb:GetItem", "dynamodb:BatchGetItem"].includes(grant.action)) return true;
  if (role.endsWith("/MigrateRole") && isWrite(grant.action)) return true;
  if (role.endsWith("/AuthSessionRole") && grant.action === "dynamodb:DeleteItem" && /auth-idents$/.test(table)) return true;
  if (role.endsWith("/AuthSessionRole") && grant.action === "dynamodb:PartiQLSelect" && /auth-sessions$/.test(table)) return true;
  return role.endsWith("/AuthRole") && /auth-idp-states$/.test(table);
}

describe("every function's role, against what its code calls", () => {
  it("drove every function of the template, each route to the function packaging gave it", () => {
    expect([...functions.keys()].filter((fn) => !invoked.has(fn))).toEqual([]);
    // The flows did what they say: a failed registration or login would leave most routes unexercised.
    expect(statuses).toMatchObject({
      "POST /auth/email/register": "200",
      "POST /auth/email/login": "200",
      "POST /posts": "200",
      "PUT /posts": "200",
      "POST /comments": "200",
    });
    expect(Object.entries(statuses).filter(([, status]) => status.startsWith("5"))).toEqual([]);
    expect(recorded.get("auth-email-register")?.some((c) => c.action === "ses:SendEmail")).toBe(true);
  });

  it("grants every call each function's code made, on its table or index", () => {
    const missing: string[] = [];
    for (const { name, role, grants } of functionGrants(stacks)) {
      const fn = name.replace(/^blog-ci-/, "");
      for (const call of recorded.get(fn) ?? [])
        if (!allows(grants, call)) missing.push(`${fn} (${role}): ${call.action} ${call.table ?? ""}${call.index ? `/${call.index}` : ""}`);
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it("grants each role nothing its functions were not seen using, beyond the stated margin", () => {
    const byRole = new Map<string, { grants: Grant[]; seen: Set<string> }>();
    for (const { name, role, grants } of functionGrants(stacks)) {
      const entry = byRole.get(role) ?? { grants, seen: new Set<string>() };
      for (const call of recorded.get(name.replace(/^blog-ci-/, "")) ?? []) {
        entry.seen.add(call.table === undefined ? call.action : `${family(call.action)} ${packagedName(call.table)}`);
      }
      byRole.set(role, entry);
    }
    const unused: string[] = [];
    for (const [role, { grants, seen }] of byRole) {
      for (const grant of grants) {
        if (FRAMEWORK.test(grant.action)) continue;
        if (grant.action.startsWith("dynamodb:") ? margin(role, grant, seen) : seen.has(grant.action)) continue;
        unused.push(`${role}: ${grant.action} ${grant.resource}`);
      }
    }
    expect([...new Set(unused)]).toEqual([]);
  });

  it("keeps writes from record reads, auth tables and mail from all but the auth functions, connections from all but ws and stream", () => {
    expect(kindViolations(stacks)).toEqual([]);
    const roles = new Map(functionGrants(stacks).map((f) => [f.name.replace(/^blog-ci-/, ""), f]));
    // The public GET route, GraphiQL and the keys route: no write, no auth table, no mail, no connection.
    for (const fn of ["rest-post-get", "graphiql", "auth-jwks"]) {
      const grants = roles.get(fn)?.grants ?? [];
      expect(
        grants.filter((g) => isWrite(g.action) || g.action.startsWith("ses:") || g.action.startsWith("execute-api:")),
        fn,
      ).toEqual([]);
    }
    for (const fn of ["graphiql", "auth-jwks", "auth-providers", "rest-openapi", "rest-fallback"]) {
      expect(
        roles.get(fn)?.grants.filter((g) => g.action.startsWith("dynamodb:")),
        fn,
      ).toEqual([]);
    }
  });

  it("lets each function's role read exactly the secret parameters the function is given, no more", () => {
    const wrong: string[] = [];
    for (const { name, id, stack, role, grants } of functionGrants(stacks)) {
      const resource = stacks.find((s) => s.id === stack)?.template.Resources[id];
      const variables = ((resource?.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<
        string,
        unknown
      >;
      const given = Object.entries(variables)
        .filter(([key]) => key.endsWith("_PARAMETER"))
        .map(([, parameter]) => JSON.stringify({ "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${String(parameter)}` }))
        .sort();
      const readable = [...new Set(grants.filter((g) => g.action === "ssm:GetParameters").map((g) => g.resource))].sort();
      if (JSON.stringify(given) !== JSON.stringify(readable)) wrong.push(`${name} (${role}): given ${given.join(" ")}, may read ${readable.join(" ")}`);
    }
    expect(wrong).toEqual([]);
    // The record reads read no secret, and run as roles that may read none.
    const reads = functionGrants(stacks).filter((f) => f.handler === "functions/rest-read.handler");
    expect(reads.length).toBeGreaterThan(0);
    for (const f of reads)
      expect(
        f.grants.filter((g) => g.action.startsWith("ssm:")),
        f.name,
      ).toEqual([]);
  });

  it("lets the mail-sending role send as the configured sender only (ses:FromAddress)", () => {
    const statements = stacks.flatMap((stack) =>
      Object.values(stack.template.Resources).flatMap((resource) => {
        const documents =
          resource.Type === "AWS::IAM::Role"
            ? ((resource.Properties?.Policies ?? []) as { PolicyDocument: { Statement: Record<string, unknown>[] } }[]).map((p) => p.PolicyDocument)
            : resource.Type === "AWS::IAM::ManagedPolicy"
              ? [resource.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] }]
              : [];
        return documents.flatMap((d) => d.Statement).filter((s) => [s.Action].flat().some((a) => String(a).startsWith("ses:")));
      }),
    );
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.Action).toEqual(["ses:SendEmail"]);
      expect(statement.Condition).toEqual({ StringEquals: { "ses:FromAddress": ["no-reply@blog.example.com"] } });
    }
  });
});
