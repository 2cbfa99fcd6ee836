import { execFile } from "node:child_process";
import { generateSigningJwk } from "../../lib/auth/index.ts";
import { access, cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireOfflineLock } from "../../lib/local/offline-lock.ts";
import { app } from "../../app/index.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { overlyBroad, statementsOf } from "../support/iam.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = await mkdtemp(join(tmpdir(), "package-"));
// Packaging rewrites .esbuild/, which a running `npm start` serves from: never both at once.
let release: (() => Promise<void>) | undefined;
beforeAll(async () => {
  release = await acquireOfflineLock(600_000);
}, 610_000);
afterAll(async () => {
  await release?.();
  await rm(scratch, { recursive: true, force: true });
});

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

describe("serverless package", () => {
  it("packages offline: one function and one API Gateway route per derived route, tables, least-privilege IAM", async () => {
    const out = join(scratch, "out");
    await run(join(root, "node_modules/.bin/serverless"), [
      "package", "--stage", "ci", "--package", out, "--param", `appSecret=${"s".repeat(48)}`,
      // A deployed stage needs its own signing key and a real Idp client (both refused when missing).
      "--param", `authSigningKey=${JSON.stringify(generateSigningJwk())}`,
      "--param", "idpIssuer=https://accounts.example.com", "--param", "idpClientId=ci-client", "--param", `idpClientSecret=${"c".repeat(32)}`,
      // The base of mailed links, never a request's Host (refused when missing).
      "--param", "publicUrl=https://api.example.com",
    ], {
      cwd: root,
      env: { ...process.env, ALLOW_TEST_USER: "false" },
      maxBuffer: 16 * 1024 * 1024,
    });
    const template = JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8")) as { Resources: Record<string, Resource> };
    const resources = Object.values(template.Resources);
    const routeKeys = resources.filter((r) => r.Type === "AWS::ApiGatewayV2::Route").map((r) => r.Properties.RouteKey as string);
    const derived = deriveRoutes(app);
    for (const route of derived) expect(routeKeys).toContain(route.key);
    expect(routeKeys).toContain("$default");

    const handlers = resources.filter((r) => r.Type === "AWS::Lambda::Function").map((r) => r.Properties.Handler as string);
    // Per-route packaging (the default): one function per derived route, plus the catch-all.
    expect(handlers.filter((h) => h.startsWith("functions/rest"))).toHaveLength(derived.length + 1);

    // Fewer resources per route (docs/deploying.md, "What a stack holds"): no function versions,
    // one log group per route group, and the sample fits one stack (no nested stacks).
    expect(resources.filter((r) => r.Type === "AWS::Lambda::Version")).toEqual([]);
    expect(resources.filter((r) => r.Type === "AWS::CloudFormation::Stack")).toEqual([]);
    const postRoutes = resources.filter((r) => r.Type === "AWS::Lambda::Function" && / \/posts\b/.test(String(r.Properties.Description)));
    expect(postRoutes.length).toBeGreaterThan(1);
    for (const fn of postRoutes) expect(fn.Properties.LoggingConfig).toEqual({ LogGroup: { Ref: "PostsRoutesLogGroup" } });
    expect(template.Resources.PostsRoutesLogGroup?.Properties.LogGroupName).toBe("/aws/lambda/blog-ci/posts");

    const tables = resources.filter((r) => r.Type === "AWS::DynamoDB::Table").map((r) => r.Properties.TableName);
    for (const info of app.models()) expect(tables).toContain(`blog-ci-${info.name}`);

    // Parsed, not pattern-matched: every statement of every role or policy, every resource.
    expect(statementsOf(template).length).toBeGreaterThan(0);
    expect(overlyBroad(template, "blog-ci")).toEqual([]);
    // One role per function kind and route group (docs/deploying.md, "Roles"): only the WebSocket
    // and stream roles post to connections (test/deploy/roles.test.ts checks every grant).
    expect(statementsOf(template).filter((s) => [s.Action].flat().includes("execute-api:ManageConnections"))).toHaveLength(2);
    expect(template.Resources.IamRoleLambdaExecution).toBeUndefined();
    const roleOfHandler = (handler: string) => (resources.find((r) => r.Type === "AWS::Lambda::Function" && r.Properties.Handler === handler)?.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    expect(["ws", "stream", "graphql", "graphiql", "migrate"].map((f) => roleOfHandler(`functions/${f}.handler`))).toEqual(["WebsocketRole", "StreamRole", "GraphqlRole", "LogsOnlyRole", "MigrateRole"]);

    // Stream batches: the handler reports its first failed record, and a batch whose retries
    // are spent goes to the stack's failure queue instead of vanishing.
    const mappings = resources.filter((r) => r.Type === "AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(app.models().length);
    for (const mapping of mappings) {
      expect(mapping.Properties).toMatchObject({
        FunctionResponseTypes: ["ReportBatchItemFailures"],
        MaximumRetryAttempts: 5,
        DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": ["StreamFailuresQueue", "Arn"] } } },
      });
    }
    expect(template.Resources.StreamFailuresQueue?.Type).toBe("AWS::SQS::Queue");

    // CORS: the HTTP API declares exactly what schema-cache/http-api.json holds (rendered from
    // rest.corsOrigins), the file offline's CORS plugin answers from (test/e2e/cross-origin.test.ts).
    const httpApi = JSON.parse(await readFile(join(root, "schema-cache/http-api.json"), "utf8")) as { cors?: Record<string, unknown> };
    const api = resources.find((r) => r.Type === "AWS::ApiGatewayV2::Api" && r.Properties.ProtocolType === "HTTP");
    expect(api).toBeDefined();
    expect(api?.Properties.CorsConfiguration).toEqual(httpApi.cors === undefined ? undefined : {
      AllowOrigins: httpApi.cors.allowedOrigins,
      AllowHeaders: httpApi.cors.allowedHeaders,
      AllowMethods: httpApi.cors.allowedMethods,
      ExposeHeaders: httpApi.cors.exposedResponseHeaders,
      AllowCredentials: httpApi.cors.allowCredentials,
      MaxAge: httpApi.cors.maxAge,
    });
  }, 240_000);

  it("refuses to package from a stale schema-cache, naming the command that rebuilds it", async () => {
    const doctored = join(scratch, "cache");
    await cp(join(root, "schema-cache"), doctored, { recursive: true });
    await writeFile(join(doctored, "routes.json"), "[]\n");
    const check = run(join(root, "node_modules/.bin/tsx"), ["lib/cli/main.ts", "check"], { cwd: root, env: { ...process.env, SCHEMA_CACHE_DIR: doctored } });
    await expect(check).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("npm run build") });
  }, 60_000);

  it("refuses a deployed stage without an application secret", async () => {
    const attempt = run(join(root, "node_modules/.bin/serverless"), ["package", "--stage", "prod", "--package", join(scratch, "nosecret")], {
      cwd: root,
      env: { ...process.env, APP_SECRET: "" },
      maxBuffer: 16 * 1024 * 1024,
    });
    // The refusal comes from our plugin's check, with its own message, and nothing is packaged:
    // any other failure (a syntax error, a missing file) would not match.
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining("Stage 'prod' needs an application secret of at least 32 characters: --param appSecret="),
    });
    await expect(access(join(scratch, "nosecret"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);

  it("refuses a deployed stage without an access-token signing key, whatever the test flags", async () => {
    const attempt = run(join(root, "node_modules/.bin/serverless"), ["package", "--stage", "prod", "--package", join(scratch, "nokey")], {
      cwd: root,
      env: { ...process.env, APP_SECRET: "s".repeat(48), AUTH_SIGNING_KEY: "", NODE_ENV: "test", VITEST: "true" },
      maxBuffer: 16 * 1024 * 1024,
    });
    await expect(attempt).rejects.toMatchObject({ stdout: expect.stringMatching(/authSigningKey/) });
  }, 120_000);

  it("refuses a deployed stage whose email provider has no publicUrl for its links, naming the option", async () => {
    const attempt = run(join(root, "node_modules/.bin/serverless"), [
      "package", "--stage", "prod", "--package", join(scratch, "nopublicurl"), "--param", `appSecret=${"s".repeat(48)}`,
      "--param", `authSigningKey=${JSON.stringify(generateSigningJwk())}`,
      "--param", "idpIssuer=https://accounts.example.com", "--param", "idpClientId=ci-client", "--param", `idpClientSecret=${"c".repeat(32)}`,
    ], { cwd: root, env: { ...process.env, PUBLIC_URL: "https://from-the-shell.example.com" }, maxBuffer: 16 * 1024 * 1024 });
    // A shell variable is no substitute: only `--param publicUrl` reaches the functions.
    await expect(attempt).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining("Stage 'prod' mails links (email provider) but its publicUrl is missing") });
    await expect(access(join(scratch, "nopublicurl"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);
});
