import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DescribeTableCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signalGroup, waitForExit } from "../../lib/local/child-process.ts";
import { localDynamoDbClient } from "../../lib/local/local-aws.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { ALICE } from "../support/blog.ts";
import { startOffline, READY_TIMEOUT_MS, type Offline } from "../support/offline.ts";
import { takeOfflineTurn } from "../support/offline-turn.ts";
import { ContractChecker } from "../support/openapi/contract.ts";
import { PROJECT_DIR, ProjectCopy } from "../support/project-copy.ts";
import { runBlock } from "../support/shell.ts";

/**
 * Day two under `npm start -- --persist` (docs/changing-a-deployed-application.md, "Locally";
 * docs/model-versions.md): a copy of the project stores posts as v1 over a data directory (by a
 * script: v1's tables and records, without a start of its own); v2 (Post gains a required
 * `summary` with a schema default) starts over the same directory and serves the v1 records to
 * its own contract; v3 (Tag's key changes) is refused at start with the commands `webda plan`
 * gives, before any handler sees the database.
 * One `npm start` for v2, one for v3.
 */

const COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_SUMMARY = "(no summary)";
const PREFIX = "blog-local-";

let project: ProjectCopy | undefined;
let copy = "";
let dataDir = "";
let offline: Offline | undefined;

const TAG_INDEX_EDIT = [
  "  static override readonly schema = schema;\n",
  '  static override readonly schema = schema;\n  static override readonly indexes = [{ name: "by_name", hash: "name" }];\n',
] as const;
const SUMMARY_EDIT = [
  "  viewCount: Type.Optional(Type.Integer({ minimum: 0 })),\n",
  `  viewCount: Type.Optional(Type.Integer({ minimum: 0 })),\n  summary: Type.String({ minLength: 1, maxLength: 300, default: ${JSON.stringify(DEFAULT_SUMMARY)} }),\n`,
] as const;

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: unknown;
}

async function send(method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${offline?.url ?? ""}${path}`, {
    method,
    headers: { "x-test-user": ALICE, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers.entries()), text, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const post = (slug: string) => ({ slug, title: `Title ${slug}`, content: "written by v1", status: "published" });

/** Where the start's DynamoDB Local listens, as its first line says. */
function databaseEndpoint(output: string): string {
  const found = /DynamoDB Local on (http:\/\/\S+)/.exec(output)?.[1];
  if (!found) throw new Error(`npm start did not say where DynamoDB Local is:\n${output}`);
  return found;
}

async function stopOffline(): Promise<void> {
  const running = offline;
  offline = undefined;
  await running?.stop();
}

beforeAll(() => {
  project = new ProjectCopy("day-two");
  copy = project.dir;
  dataDir = join(copy, ".data", "day-two");
  mkdirSync(dataDir, { recursive: true });
});

afterAll(async () => {
  await offline?.stop();
  project?.remove();
}, 60_000);

describe("day two under npm start -- --persist: v1 writes, v2 serves them to its contract, v3 is refused", () => {
  it("v1 stores posts and a tag in the data directory, as its npm start would", { timeout: 300_000 }, async () => {
    // v1's Tag has an index v2 no longer declares.
    project?.edit("app/models/tag.ts", [TAG_INDEX_EDIT]);
    // A script, not a whole start (test/support/day-two-v1.ts): v1's tables as npm start creates
    // them, its records through the domain as Alice; v2's start and requests check what it left.
    const records = [
      ...["old-read", "old-patched"].map((slug) => ({ model: "Post", as: ALICE, data: post(slug) })),
      { model: "Tag", as: ALICE, data: { slug: "day-two", name: "Day two", description: "", color: "#3366ff" } },
    ];
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DYNAMODB_ENDPOINT;
    delete env.TABLE_PREFIX;
    const out = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [join(PROJECT_DIR, "node_modules", "tsx", "dist", "cli.mjs"), "test/support/day-two-v1.ts", dataDir, JSON.stringify(records)],
        {
          cwd: copy,
          env,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.on("close", (code) => resolve({ code, output }));
    });
    expect(out.code, out.output).toBe(0);
    expect(out.output).toContain(`${PREFIX}Tag`);
    expect(out.output).toContain("seed: 3 records created, 0 already there");
  });

  it("v2 builds: a required field with a default is no break of stored records", { timeout: COMMAND_TIMEOUT_MS }, async () => {
    project?.write("app/models/tag.ts", project.original("app/models/tag.ts"));
    project?.edit("app/models/post.ts", [SUMMARY_EDIT]);
    const out = await runBlock("npx webda build", copy, COMMAND_TIMEOUT_MS);
    expect(out.code, `${out.stdout}\n${out.stderr}`).toBe(0);
    // GraphQL derives nullability from the response schema: a defaulted field is non-null.
    const sdl = readFileSync(join(copy, "schema-cache", "schema.graphql"), "utf8");
    expect(/type Post \{[^}]*\n {2}summary: String!\n/.exec(sdl), sdl).not.toBeNull();
  });

  it("v2 serves a v1 record with the default, as its OpenAPI document and GraphQL types say", { timeout: 500_000 }, async () => {
    offline = await startOffline({ projectDir: copy, args: ["--data-dir", dataDir, "--empty"] });
    // The index v2 no longer declares is deleted at start, as a deploy's plan deletes it; no other.
    expect(offline.output()).toMatch(/tables: .*blog-local-Post/);
    expect(offline.output()).toContain(`indexes removed (no longer declared as they are): ${PREFIX}Tag.by_name\n`);
    const admin = localDynamoDbClient(databaseEndpoint(offline.output()));
    try {
      const indexesOf = async (model: string) =>
        ((await admin.send(new DescribeTableCommand({ TableName: tableName(PREFIX, model) }))).Table?.GlobalSecondaryIndexes ?? [])
          .map((i) => i.IndexName)
          .sort();
      expect(await indexesOf("Tag")).toEqual(["by_createdBy"]);
      expect(await indexesOf("Post")).toEqual(["by_author", "by_status"]);
    } finally {
      admin.destroy();
    }
    const got = await send("GET", "/posts/old-read");
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ slug: "old-read", content: "written by v1", summary: DEFAULT_SUMMARY });
    const document = (await send("GET", "/openapi.json")).body as Record<string, unknown>;
    const checker = new ContractChecker(document);
    expect(checker.check({ operationId: "Post.get", status: got.status, headers: got.headers, bodyText: got.text })).toEqual([]);
    // The served document is v2's, where summary is required: the record without it would not pass.
    const { summary: _served, ...asStored } = got.body as Record<string, unknown>;
    expect(checker.check({ operationId: "Post.get", status: 200, headers: got.headers, bodyText: JSON.stringify(asStored) }).join("\n")).toMatch(/summary/);

    const graphql = await send("POST", "/graphql", { query: '{ Post(slug: "old-read") { slug summary } }' });
    expect(graphql.body).toEqual({ data: { Post: { slug: "old-read", summary: DEFAULT_SUMMARY } } });
  });

  it("v2's filter on the defaulted field matches the old rows, as served", { timeout: 60_000 }, async () => {
    const matching = await send("PUT", "/posts", { q: `summary = '${DEFAULT_SUMMARY}'`, limit: 100 });
    expect(matching.status).toBe(200);
    expect(((matching.body as { results: { slug: string }[] }).results.map((r) => r.slug) ?? []).sort()).toEqual(["old-patched", "old-read"]);
    const other = await send("PUT", "/posts", { q: "summary = 'something else'", limit: 100 });
    expect((other.body as { results: unknown[] }).results).toEqual([]);
  });

  it("v2's PATCH of another field stores a whole, current record, summary included", { timeout: 60_000 }, async () => {
    const patched = await send("PATCH", "/posts/old-patched", { title: "Patched by v2" });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ title: "Patched by v2", summary: DEFAULT_SUMMARY });
    const client = localDynamoDbClient(databaseEndpoint(offline?.output() ?? ""));
    try {
      const read = async (slug: string) =>
        unmarshall(
          (await client.send(new GetItemCommand({ TableName: tableName(PREFIX, "Post"), Key: { slug: { S: slug } }, ConsistentRead: true }))).Item ?? {},
        );
      expect(await read("old-patched")).toMatchObject({ slug: "old-patched", title: "Patched by v2", content: "written by v1", summary: DEFAULT_SUMMARY });
      // Reading wrote nothing: the record only read is still as v1 stored it.
      expect(await read("old-read")).not.toHaveProperty("summary");
    } finally {
      client.destroy();
    }
    await stopOffline();
  });

  it("v3 (Tag's key changes over a table that holds a tag) stops at start with the commands, as webda plan would", { timeout: 300_000 }, async () => {
    project?.write("app/models/tag.ts", project.original("app/models/tag.ts").replace('FRAMEWORK_PRIMARY_KEY = ["slug"]', 'FRAMEWORK_PRIMARY_KEY = ["name"]'));
    expect(readFileSync(join(copy, "app/models/tag.ts"), "utf8")).toContain('FRAMEWORK_PRIMARY_KEY = ["name"]');
    project?.edit("app/models/post.ts", [SUMMARY_EDIT]);
    await stopOffline();
    const release = await takeOfflineTurn(READY_TIMEOUT_MS * 2);
    try {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.DYNAMODB_ENDPOINT;
      delete env.TABLE_PREFIX;
      const child = spawn(
        process.execPath,
        [join(PROJECT_DIR, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/start.ts", "--data-dir", dataDir, "--empty"],
        {
          cwd: copy,
          env,
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      if (!(await waitForExit(child, READY_TIMEOUT_MS))) {
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
        throw new Error(`v3's npm start did not stop by itself:\n${output}`);
      }
      expect(child.exitCode, output).toBe(1);
      expect(output).toContain("the database holds tables this version cannot use as they are");
      expect(output).toContain(`${PREFIX}Tag: its key changes`);
      expect(output).toContain(`npx webda db copy --local --from ${PREFIX}Tag --to <the new table>`);
    } finally {
      await release();
    }
  });
});
