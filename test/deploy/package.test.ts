import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { generateSigningJwk, publicKeySet } from "../../lib/auth/index.ts";
import { access, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ProjectCopy } from "../support/project-copy.ts";
import { app } from "../../app/index.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { overlyBroad, statementsOf } from "../support/iam.ts";
import { specErrors } from "../support/cfn-validation.ts";
import { documentedRow } from "../support/stack-figures.ts";

const run = promisify(execFile);
// Packaging rewrites .esbuild/, which a running `npm start` serves from: this file packages a copy
// of the project, so it runs beside any start (no turn on the offline lock).
const copy = new ProjectCopy("package");
const root = copy.dir;
const scratch = await mkdtemp(join(tmpdir(), "package-"));
afterAll(async () => {
  copy.remove();
  await rm(scratch, { recursive: true, force: true });
});

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

// The packaging run of the first test, whose output the secrets test reads too (packaging is slow).
const out = join(scratch, "out");
// Secret values a careless operator has at hand while packaging (here, in the shell environment):
// none may reach any file packaging writes (docs/deploying.md, "Secrets").
const signingJwk = JSON.stringify(generateSigningJwk());
const knownSecrets = {
  APP_SECRET: `app-secret-${randomBytes(24).toString("hex")}`,
  AUTH_SIGNING_KEY: signingJwk,
  IDP_CLIENT_SECRET: `idp-client-${randomBytes(24).toString("hex")}`,
};
const secretParameters = { APP_SECRET: "/blog/ci/app-secret", AUTH_SIGNING_KEY: "/blog/ci/auth-signing-key", IDP_CLIENT_SECRET: "/blog/ci/idp-client-secret" };
/** What a deployed stage is given: the secrets' SSM parameter NAMES, the signing key's public set. */
const secretParams = [
  "--param",
  `appSecretParameter=${secretParameters.APP_SECRET}`,
  "--param",
  `authSigningKeyParameter=${secretParameters.AUTH_SIGNING_KEY}`,
  "--param",
  `idpClientSecretParameter=${secretParameters.IDP_CLIENT_SECRET}`,
  "--param",
  `authPublicKeys=${JSON.stringify(publicKeySet(signingJwk))}`,
];

describe("serverless package", () => {
  it("packages offline: one function and one API Gateway route per derived route, tables, least-privilege IAM, valid against AWS's resource specification", async () => {
    await run(
      join(root, "node_modules/.bin/serverless"),
      [
        // A deployed stage needs its secrets' parameters, its signing key's public set and a real Idp client (refused when missing).
        "package",
        "--stage",
        "ci",
        "--package",
        out,
        ...secretParams,
        "--param",
        "idpIssuer=https://accounts.example.com",
        "--param",
        "idpClientId=ci-client",
        // The base of mailed links, never a request's Host (refused when missing).
        "--param",
        "publicUrl=https://api.example.com",
        // Where the alarms go (refused when missing); the sample's test routes kept, as checked below.
        "--param",
        "alarmEmail=ops@example.com",
        "--param",
        "testRoutes=true",
        // V8's compile cache in every package, for this Node version on provider.architecture
        // (arm64: generated under qemu-user, .ci/run installs it).
        "--param",
        `compileCacheNode=${process.versions.node}`,
      ],
      {
        cwd: root,
        env: { ...process.env, ALLOW_TEST_USER: "false", ...knownSecrets },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    // What DynamoDB Local and offline accept, CloudFormation may refuse: every packaged template
    // against the resource specification (docs/deploying.md, "Validation").
    expect(await specErrors(out)).toEqual([]);
    const template = JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8")) as { Resources: Record<string, Resource> };
    const resources = Object.values(template.Resources);
    // The figures docs/deploying.md gives ("How many models fit") are this run's, not estimates.
    const page = await readFile(join(root, "docs/deploying.md"), "utf8");
    expect(documentedRow(page, "the sample, route packaging")).toEqual(["1", String(resources.length), String(resources.length)]);
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
    // One role per function kind and route group (docs/deploying.md, "Roles"): only the WebSocket,
    // stream and fan-out worker roles post to connections (test/deploy/roles.test.ts checks every grant).
    expect(statementsOf(template).filter((s) => [s.Action].flat().includes("execute-api:ManageConnections"))).toHaveLength(3);
    expect(template.Resources.IamRoleLambdaExecution).toBeUndefined();
    const roleOfHandler = (handler: string) =>
      (resources.find((r) => r.Type === "AWS::Lambda::Function" && r.Properties.Handler === handler)?.Properties.Role as { "Fn::GetAtt": [string, string] })[
        "Fn::GetAtt"
      ][0];
    expect(["ws", "stream", "graphql", "migrate"].map((f) => roleOfHandler(`functions/${f}.handler`))).toEqual([
      "WebsocketRole",
      "StreamRole",
      "GraphqlRole",
      "MigrateRole",
    ]);
    // GraphiQL stays out of a deployed stage unless `--param graphiql=true` asks for it (docs/operating.md).
    expect(handlers).not.toContain("functions/graphiql.handler");

    // Stream batches: the handler reports its first failed record, and a batch whose retries
    // are spent goes to the stack's failure queue instead of vanishing.
    const fromQueue = (r: Resource) => JSON.stringify(r.Properties.EventSourceArn ?? "").includes("FanoutQueue");
    const mappings = resources.filter((r) => r.Type === "AWS::Lambda::EventSourceMapping" && !fromQueue(r));
    expect(mappings).toHaveLength(app.models().length);
    // The fan-out queue's one mapping: a message per invocation, failures reported per message (so
    // a FIFO group is handed back in order), at most `fanoutWorkers` invocations at once.
    const fanout = resources.filter((r) => r.Type === "AWS::Lambda::EventSourceMapping" && fromQueue(r));
    expect(fanout).toHaveLength(1);
    expect(fanout[0]?.Properties).toMatchObject({
      BatchSize: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      ScalingConfig: { MaximumConcurrency: 100 },
    });
    for (const mapping of mappings) {
      expect(mapping.Properties).toMatchObject({
        FunctionResponseTypes: ["ReportBatchItemFailures"],
        MaximumRetryAttempts: 5,
        DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": ["StreamFailuresQueue", "Arn"] } } },
      });
    }
    expect(template.Resources.StreamFailuresQueue?.Type).toBe("AWS::SQS::Queue");

    // Every function's package holds its bundle's compile cache, built for the path Lambda runs it
    // from, and the function is pointed at it (docs/deploying.md, "Compile cache").
    const functions = resources.filter((r) => r.Type === "AWS::Lambda::Function");
    for (const fn of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.NODE_COMPILE_CACHE).toBe("/var/task/.node-compile-cache");
    }
    const zips = (await readdir(out)).filter((f) => f.endsWith(".zip"));
    expect(zips.length).toBe(functions.length);
    for (const zip of zips.slice(0, 5)) {
      const { stdout } = await run("unzip", ["-p", join(out, zip), ".node-compile-cache/manifest.json"]);
      const manifest = JSON.parse(stdout) as { bundle: string; directory: string; node: string; arch: string };
      expect(manifest.bundle).toMatch(/^\/var\/task\/functions\/[\w-]+\.mjs$/);
      expect(manifest).toMatchObject({ node: process.version, arch: "arm64" });
      expect(manifest.directory).toMatch(new RegExp(`^${process.version}-arm64-[0-9a-f]+-993$`));
    }

    // CORS: the HTTP API declares exactly what schema-cache/http-api.json holds (rendered from
    // rest.corsOrigins), the file offline's CORS plugin answers from (test/e2e/cross-origin.test.ts).
    const httpApi = JSON.parse(await readFile(join(root, "schema-cache/http-api.json"), "utf8")) as { cors?: Record<string, unknown> };
    const api = resources.find((r) => r.Type === "AWS::ApiGatewayV2::Api" && r.Properties.ProtocolType === "HTTP");
    expect(api).toBeDefined();
    expect(api?.Properties.CorsConfiguration).toEqual(
      httpApi.cors === undefined
        ? undefined
        : {
            AllowOrigins: httpApi.cors.allowedOrigins,
            AllowHeaders: httpApi.cors.allowedHeaders,
            AllowMethods: httpApi.cors.allowedMethods,
            ExposeHeaders: httpApi.cors.exposedResponseHeaders,
            AllowCredentials: httpApi.cors.allowCredentials,
            MaxAge: httpApi.cors.maxAge,
          },
    );
  }, 360_000);

  it("refuses to package from a stale schema-cache, naming the command that rebuilds it", async () => {
    const doctored = join(scratch, "cache");
    await cp(join(root, "schema-cache"), doctored, { recursive: true });
    await writeFile(join(doctored, "routes.json"), "[]\n");
    const check = run(join(root, "node_modules/.bin/tsx"), ["lib/cli/main.ts", "check"], { cwd: root, env: { ...process.env, SCHEMA_CACHE_DIR: doctored } });
    await expect(check).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("npm run build") });
  }, 60_000);

  it("refuses a deployed stage without its application secret's parameter", async () => {
    const attempt = run(join(root, "node_modules/.bin/serverless"), ["package", "--stage", "prod", "--package", join(scratch, "nosecret")], {
      cwd: root,
      // A value in the shell is no substitute for the parameter's name.
      env: { ...process.env, APP_SECRET: "s".repeat(48) },
      maxBuffer: 16 * 1024 * 1024,
    });
    // The refusal comes from our plugin's check, with its own message, and nothing is packaged:
    // any other failure (a syntax error, a missing file) would not match.
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining(
        "Stage 'prod' needs the SSM parameter holding its application secret (a SecureString of at least 32 characters): --param appSecretParameter=/blog/prod/app-secret",
      ),
    });
    await expect(access(join(scratch, "nosecret"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);

  it("refuses a deployed stage without its signing key's parameter and public set, whatever the test flags", async () => {
    const attempt = run(
      join(root, "node_modules/.bin/serverless"),
      ["package", "--stage", "prod", "--package", join(scratch, "nokey"), "--param", "appSecretParameter=/blog/prod/app-secret"],
      {
        cwd: root,
        env: { ...process.env, AUTH_SIGNING_KEY: signingJwk, NODE_ENV: "test", VITEST: "true" },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    await expect(attempt).rejects.toMatchObject({ stdout: expect.stringMatching(/--param authSigningKeyParameter=[\s\S]*--param authPublicKeys=/) });
  }, 120_000);

  it("refuses a deployed stage whose email provider's publicUrl cannot carry links, naming the option", async () => {
    // Left out, publicUrl is the API's own URL (test/cli/new-project-start.test.ts packages so); given, it must be https.
    const attempt = run(
      join(root, "node_modules/.bin/serverless"),
      [
        "package",
        "--stage",
        "prod",
        "--package",
        join(scratch, "nopublicurl"),
        ...secretParams,
        "--param",
        "idpIssuer=https://accounts.example.com",
        "--param",
        "idpClientId=ci-client",
        "--param",
        "publicUrl=http://api.example.com",
      ],
      { cwd: root, env: { ...process.env, PUBLIC_URL: "https://from-the-shell.example.com" }, maxBuffer: 16 * 1024 * 1024 },
    );
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining("Stage 'prod' mails links (email provider) but its publicUrl must be https"),
    });
    await expect(access(join(scratch, "nopublicurl"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);

  it("writes no secret value anywhere, gives each function only the parameters it reads and its role only those", async () => {
    // Every file packaging wrote: the output folder (templates, state, zips unpacked) and the bundles.
    const unpacked = join(scratch, "unzipped");
    const zips = (await readdir(out)).filter((name) => name.endsWith(".zip"));
    expect(zips.length).toBeGreaterThan(0);
    for (const zip of zips) {
      await mkdir(join(unpacked, zip), { recursive: true });
      await run("unzip", ["-q", "-o", join(out, zip), "-d", join(unpacked, zip)]);
    }
    const files = [...(await filesUnder(out)), ...(await filesUnder(unpacked)), ...(await filesUnder(join(root, ".esbuild")))];
    expect(files.some((file) => file.endsWith("serverless-state.json"))).toBe(true);
    expect(files.some((file) => file.endsWith(".mjs"))).toBe(true);
    const privateD = (JSON.parse(signingJwk) as { d: string }).d;
    const values = { ...knownSecrets, "the signing key's d": privateD };
    const leaks: string[] = [];
    for (const file of files) {
      const text = (await readFile(file)).toString("latin1");
      for (const [name, value] of Object.entries(values)) if (text.includes(value)) leaks.push(`${name} in ${file}`);
    }
    expect(leaks).toEqual([]);

    // Each function's configuration names the parameters its handler reads (serverless.yml
    // custom.secrets.readers), and its role may read those: the template the functions run from.
    const template = JSON.parse(await readFile(join(out, "cloudformation-template-update-stack.json"), "utf8")) as { Resources: Record<string, Resource> };
    const functions = Object.values(template.Resources).filter((r) => r.Type === "AWS::Lambda::Function");
    const readers: Record<string, string[]> = {
      "functions/rest": ["APP_SECRET"],
      "functions/rest-read": [],
      "functions/graphql": ["APP_SECRET"],
      "functions/graphiql": [],
      "functions/ws": ["APP_SECRET"],
      "functions/stream": ["APP_SECRET"],
      "functions/fanout": ["APP_SECRET"],
      "functions/auth-session": ["APP_SECRET", "AUTH_SIGNING_KEY"],
      "functions/auth": ["APP_SECRET", "AUTH_SIGNING_KEY", "IDP_CLIENT_SECRET"],
      "functions/migrate": ["APP_SECRET"],
    };
    const seen = new Set<string>();
    for (const fn of functions) {
      const module = String(fn.Properties.Handler).replace(/\.[^./]+$/, "");
      seen.add(module);
      const environment = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
      const named = Object.keys(environment)
        .filter((name) => name.endsWith("_PARAMETER"))
        .sort();
      expect(named, module).toEqual((readers[module] ?? ["(a handler the test does not know)"]).map((secret) => `${secret}_PARAMETER`).sort());
      for (const secret of readers[module] ?? []) expect(environment[`${secret}_PARAMETER`]).toBe(secretParameters[secret as keyof typeof secretParameters]);
      // The public set, for verifying: every function may have it.
      expect(JSON.parse(environment.AUTH_PUBLIC_KEYS as string)).toEqual(publicKeySet(signingJwk));
      const roleId = (fn.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
      const granted = statementsOf({ Resources: { [roleId]: template.Resources[roleId] as Resource } })
        .filter((statement) => [statement.Action].flat().includes("ssm:GetParameters"))
        .flatMap((statement) => [statement.Resource].flat().map((resource) => (resource as { "Fn::Sub": string })["Fn::Sub"]));
      for (const secret of readers[module] ?? []) {
        expect(granted, `${module}'s role (${roleId})`).toContain(
          `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${secretParameters[secret as keyof typeof secretParameters]}`,
        );
      }
    }
    // Every handler but GraphiQL's, which a deployed stage leaves out unless asked.
    expect([...seen].sort()).toEqual(
      Object.keys(readers)
        .filter((module) => module !== "functions/graphiql")
        .sort(),
    );
  }, 120_000);

  it("refuses a secret value given the old way in a deployed stage, naming the parameter that replaces it", async () => {
    const attempt = run(
      join(root, "node_modules/.bin/serverless"),
      ["package", "--stage", "prod", "--package", join(scratch, "byvalue"), ...secretParams, "--param", `appSecret=${knownSecrets.APP_SECRET}`],
      { cwd: root, env: process.env, maxBuffer: 16 * 1024 * 1024 },
    );
    await expect(attempt).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining("--param appSecret=...  ->  store it as an SSM SecureString and pass --param appSecretParameter=<parameter name>"),
    });
    await expect(attempt).rejects.toMatchObject({ stdout: expect.not.stringContaining(knownSecrets.APP_SECRET) });
    await expect(access(join(scratch, "byvalue"))).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}
