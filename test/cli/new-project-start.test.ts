import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OFFLINE_PORT_ENV } from "../../lib/http/offline.ts";
import { freePort } from "../../lib/local/ports.ts";
import { documentedDeployCommand, withoutIdp } from "../support/deploy-parameters.ts";
import { startOwnOffline, type Offline } from "../support/offline.ts";
import { describeTracker, writeTracker } from "./new-project-tracker.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Run {
  code: number;
  output: string;
}

/** A command as a user types it in `cwd`, its output as one text (colours off). */
function sh(script: string, cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", script],
      { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stripVTControlCharacters(`${stdout}${stderr}`) }),
    );
  });
}

// The new project's own `npm test` and `npm start` run outside this run's database and variables.
const { DYNAMODB_ENDPOINT: _endpoint, TABLE_PREFIX: _prefix, VITEST: _vitest, VITEST_POOL_ID: _pool, VITEST_WORKER_ID: _worker, ...cleanEnv } = process.env;

const work = mkdtempSync(join(tmpdir(), "webda-new-start-"));
const clone = join(work, "framework");
const project = join(work, "tracker");
let offline: Offline | undefined;
// Ports of its own: the project's start neither waits for nor collides with any other on this machine.
const ports = { http: 0, websocket: 0, lambda: 0, db: 0 };

beforeAll(async () => {
  // A clean clone of this project, as a user gets it; its node_modules are this project's.
  const cloned = await sh(`git clone -q ${JSON.stringify(ROOT)} framework`, work, 120_000);
  expect(cloned.code, cloned.output).toBe(0);
  symlinkSync(join(ROOT, "node_modules"), join(clone, "node_modules"), "dir");
  for (const kind of Object.keys(ports) as (keyof typeof ports)[]) {
    let port = await freePort();
    while (Object.values(ports).includes(port)) port = await freePort();
    ports[kind] = port;
  }
}, 180_000);

afterAll(async () => {
  await offline?.stop();
});

describe("a new project, from a clean clone: its README's two commands", () => {
  it("is written by `npx webda new ../tracker`, installs with npm ci from the same lock, and with the tracker's models added builds, typechecks, lints and passes npm test", async () => {
    const created = await sh("npx webda new ../tracker", clone, 120_000);
    expect(created.code, created.output).toBe(0);
    writeTracker(project);
    // npm's cache holds every package this project installed: the same lock installs without the network.
    const install = await sh("npm ci --prefer-offline --no-audit --no-fund", project, 900_000);
    expect(install.code, install.output).toBe(0);
    // The README's step after adding a model: schema-cache/ rendered again (packaging refuses a stale one).
    for (const script of ["npm run build", "npm run typecheck", "npm run lint", "npm test"]) {
      const result = await new Promise<Run>((resolve) =>
        execFile(
          "bash",
          ["-c", script],
          { cwd: project, env: { ...cleanEnv, NO_COLOR: "1" }, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
          (error, stdout, stderr) => resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` }),
        ),
      );
      expect(result.code, `${script}\n${result.output}`).toBe(0);
    }
  }, 1_800_000);

  it("packages offline with docs/deploying.md's command as written, less the Idp's parameters and with no publicUrl", async () => {
    const keys = await sh(
      "npx webda keygen > signing.jwk && npx webda keygen --public < signing.jwk > auth-public-keys.json && rm signing.jwk",
      project,
      120_000,
    );
    expect(keys.code, keys.output).toBe(0);
    const command = withoutIdp(documentedDeployCommand(readFileSync(join(ROOT, "docs/deploying.md"), "utf8"))).replace(
      /^npx serverless deploy /,
      "npx serverless package ",
    );
    // No AWS: whatever credentials this shell has are not the new project's to use.
    // A shell's PUBLIC_URL is no substitute for the parameter: the functions get the API's own URL.
    const packaged = await sh(
      `env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_PROFILE PUBLIC_URL=https://from-the-shell.example.com ${command}`,
      project,
      900_000,
    );
    expect(packaged.code, packaged.output).toBe(0);
    const template = JSON.parse(readFileSync(join(project, ".serverless/cloudformation-template-update-stack.json"), "utf8")) as {
      Resources: Record<string, { Type: string; Properties: { TableName?: string; Environment?: { Variables?: Record<string, unknown> } } }>;
    };
    const resources = Object.values(template.Resources);
    expect(resources.filter((r) => r.Type === "AWS::DynamoDB::Table").map((r) => r.Properties.TableName)).toContain("tracker-prod-Note");
    const functions = resources.filter((r) => r.Type === "AWS::Lambda::Function");
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      // The links' base is the API's own URL, from the HttpApi this stack creates.
      expect(fn.Properties.Environment?.Variables?.PUBLIC_URL).toEqual({
        "Fn::Join": ["", ["https://", { Ref: "HttpApi" }, ".execute-api.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]],
      });
      expect(fn.Properties.Environment?.Variables?.IDP_CLIENT_SECRET_PARAMETER).toBeUndefined();
    }
  }, 1_200_000);

  it("`npm start` serves it: seeded as the project names it, its example model on REST and GraphQL, GraphiQL opening on its own models", async () => {
    const env = {
      [OFFLINE_PORT_ENV.http]: String(ports.http),
      [OFFLINE_PORT_ENV.websocket]: String(ports.websocket),
      [OFFLINE_PORT_ENV.lambda]: String(ports.lambda),
      DYNAMODB_PORT: String(ports.db),
    };
    // Its own project, ports and database: it starts beside any other `npm start` (no offline lock).
    offline = await startOwnOffline({ projectDir: project, args: [], readyPath: "/graphiql", env });
    await offline.waitForOutput("Sample tracker seeded.");
    expect(offline.output()).toContain("tables tracker-local-*");
    expect(offline.output()).not.toMatch(/blog/i);
    const note = await fetch(`${offline.url}/notes/welcome`);
    expect(note.status).toBe(200);
    expect(await note.json()).toMatchObject({ slug: "welcome", title: "Welcome to tracker" });
    const graphql = await fetch(`${offline.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ Notes(limit: 10) { results { slug } } }" }),
    });
    const slugs = ((await graphql.json()) as { data: { Notes: { results: { slug: string }[] } } }).data.Notes.results.map((n) => n.slug).sort();
    expect(slugs).toEqual(["next-steps", "welcome"]);
    const page = await (await fetch(`${offline.url}/graphiql`)).text();
    const boot = /src="(graphiql\/app\.[^"]+\.js)"/.exec(page)?.[1];
    expect(boot).toBeDefined();
    // The project's first model in name order: the tracker's Activity, written in beside the example.
    const document = await (await fetch(`${offline.url}/${boot}`)).text();
    expect(document).toContain("Activities(limit: 10)");
    expect(document).not.toMatch(/Posts|createPost/);
  }, 600_000);
});

describeTracker(
  () => {
    if (!offline) throw new Error("the new project's npm start did not answer");
    return offline;
  },
  () => ports.websocket,
  "tracker-local-",
);
