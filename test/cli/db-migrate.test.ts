import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbMigrate } from "../../lib/cli/db-migrate.ts";
import type { Application } from "../../lib/core/application.ts";
import { forEachBounded } from "../../lib/core/concurrency.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { MODEL_VERSION_FIELD } from "../../lib/core/record-upgrade.ts";
import { createDocumentClient, documentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { migrateRecords, type MigrationCheckpoint, type ModelMigrationReport } from "../../lib/store/record-migration.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { Article, articlesApp } from "../fixtures/records-app/articles.ts";
import { as } from "../support/blog.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";
import { waitFor } from "../support/wait.ts";

// 20,000 records written by v1 of the fixture application (test/fixtures/records-app), put raw.
const COUNT = 20_000;
const prefix = `migrate-${randomUUID().slice(0, 8)}-`;
const table = tableName(prefix, "Article");
const at = "2026-01-02T03:04:05.000Z";
const slug = (n: number) => `a${String(n).padStart(5, "0")}`;
const v1Row = (n: number) => ({ slug: slug(n), title: `Title ${n}`, body: `text ${n}`, createdAt: at, updatedAt: at, __version: 1 });

let app: Application;
let info: ModelInfo;
let state: string | undefined;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, TABLE_PREFIX: prefix });

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
}

/** Records still stored in an older shape (what a read would serve upgraded). */
async function staleCount(): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new ScanCommand({
        TableName: table,
        Select: "COUNT",
        FilterExpression: "attribute_not_exists(#mv) OR #mv < :mv",
        ExpressionAttributeNames: { "#mv": MODEL_VERSION_FIELD },
        ExpressionAttributeValues: { ":mv": 2 },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

const raw = async (key: string) => (await documentClient().send(new GetCommand({ TableName: table, Key: { slug: key }, ConsistentRead: true }))).Item;

afterAll(async () => {
  if (state) await rm(state, { recursive: true, force: true });
});

describe("webda db migrate on 20,000 records of the previous version", () => {
  beforeAll(async () => {
    app = articlesApp(Article, inProcess).useStore(dynamoStore(prefix));
    info = app.model("Article") as ModelInfo;
    state = await mkdtemp(join(tmpdir(), "db-migrate-"));
    await createModelTables(app, prefix);
    const batches: Record<string, unknown>[][] = [];
    for (let n = 0; n < COUNT; n += 25) batches.push(Array.from({ length: Math.min(25, COUNT - n) }, (_, i) => v1Row(n + i)));
    await forEachBounded(batches, 8, async (rows) => {
      let pending = rows.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const result = await documentClient().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    });
  }, 600_000);

  it("a dry run counts them all and writes nothing", async () => {
    const run = capture();
    expect(await dbMigrate(app, ["--dryRun", "--json", "--batch", "1000"], env(), run.io)).toBe(0);
    const [report] = JSON.parse(run.out.join("\n")) as ModelMigrationReport[];
    expect(report).toMatchObject({ model: "Article", dryRun: true, incomplete: false, counts: { found: COUNT, upgraded: COUNT, failed: 0 } });
    expect(await staleCount()).toBe(COUNT);
    expect(await raw(slug(7))).toEqual(v1Row(7));
  }, 300_000);

  it("killed mid-run, it resumes from its checkpoint, while writes race it; none is lost, every record ends current", async () => {
    const script = join(import.meta.dirname, "..", "fixtures", "records-app", "migrate.ts");
    const dir = state as string;
    const child = spawn(process.execPath, ["--import", "tsx", script, "--batch", "100", "--state", dir], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const checkpointFile = join(dir, `${table}.json`);
    // Killed (no chance to clean up) once it has shown progress and settled a page.
    await waitFor(
      () =>
        stat(checkpointFile).then(
          () => stderr,
          () => "",
        ),
      (text) => /scanned/.test(text),
      "a checkpoint and a progress line",
      300_000,
    );
    child.kill("SIGKILL");
    expect(await exited).toBeNull();
    const checkpoint = JSON.parse(await readFile(checkpointFile, "utf8")) as MigrationCheckpoint;
    expect(checkpoint.counts.upgraded).toBeGreaterThan(0);
    const left = await staleCount();
    expect(left).toBeLessThan(COUNT);
    expect(left).toBeGreaterThan(0);

    // Racing writes through the domain while the resumed run works: each sets a value only it knows.
    const raced = Array.from({ length: 200 }, (_, i) => (i * 97) % COUNT);
    let racing = true;
    const writes = (async () => {
      await forEachBounded(raced, 4, async (n) => {
        await app.domain.patch(as(), info, { slug: slug(n) }, { summary: `raced ${n}` });
      });
      racing = false;
    })();
    const run = capture();
    const code = await dbMigrate(app, ["--batch", "500", "--state", dir, "--json"], env(), run.io);
    await writes;
    expect(racing).toBe(false);
    expect(code).toBe(0);
    const [report] = JSON.parse(run.out.join("\n")) as ModelMigrationReport[];
    expect(report?.resumedFrom).toEqual(checkpoint.after);
    expect(report?.incomplete).toBe(false);
    expect(report?.counts.failed).toBe(0);
    expect(run.err.some((line) => /scanned/.test(line))).toBe(true);
    await expect(stat(checkpointFile)).rejects.toThrow();

    expect(await staleCount()).toBe(0);
    for (const n of raced) {
      const stored = await raw(slug(n));
      expect(stored).toMatchObject({ summary: `raced ${n}`, content: `text ${n}`, status: "draft", [MODEL_VERSION_FIELD]: 2 });
      expect(stored).not.toHaveProperty("body");
    }
    expect(await raw(slug(COUNT - 1))).toEqual({
      slug: slug(COUNT - 1),
      title: `Title ${COUNT - 1}`,
      content: `text ${COUNT - 1}`,
      summary: "(no summary)",
      status: "draft",
      tags: [],
      createdAt: at,
      updatedAt: at,
      __version: 1,
      [MODEL_VERSION_FIELD]: 2,
    });
  }, 900_000);

  it("run again, it finds nothing to do and writes nothing", async () => {
    const run = capture();
    expect(await dbMigrate(app, ["--json", "--batch", "1000", "--state", state as string], env(), run.io)).toBe(0);
    const [report] = JSON.parse(run.out.join("\n")) as ModelMigrationReport[];
    expect(report?.counts).toMatchObject({ found: 0, upgraded: 0, failed: 0 });
    expect(report?.counts.scanned).toBe(COUNT);
  }, 300_000);
});

describe("a write racing the migration of its own record", () => {
  // A table of its own, a few records: each case migrates the whole table.
  const racePrefix = `race-${randomUUID().slice(0, 8)}-`;
  const table = tableName(racePrefix, "Article");
  const raw = async (key: string) => (await documentClient().send(new GetCommand({ TableName: table, Key: { slug: key }, ConsistentRead: true }))).Item;
  let app: Application;
  let info: ModelInfo;
  beforeAll(async () => {
    app = articlesApp(Article, inProcess).useStore(dynamoStore(racePrefix));
    info = app.model("Article") as ModelInfo;
    await createModelTables(app, racePrefix);
  }, 120_000);

  /** A client that lets `race` write first, right before the migration's put of `key`. */
  function racedClient(key: string, race: () => Promise<void>): DynamoDBDocumentClient {
    const client = createDocumentClient();
    let done = false;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's put reaches the middleware as PutItemCommand, its item marshalled.
        const slugOf = (args.input as { Item?: { slug?: string | { S?: string } } }).Item?.slug;
        const put = context.commandName === "PutCommand" || context.commandName === "PutItemCommand";
        if (put && (slugOf === key || (typeof slugOf === "object" && slugOf.S === key)) && !done) {
          done = true;
          await race();
        }
        return next(args);
      },
      { step: "initialize", name: "raceBeforePut" },
    );
    return client;
  }

  it("a write that lands between the migration's read and its put is kept: the put fails, the record is read and upgraded again", async () => {
    const key = "race-1";
    await documentClient().send(new PutCommand({ TableName: table, Item: { ...v1Row(1), slug: key } }));
    const client = racedClient(key, async () => {
      await app.domain.patch(as(), info, { slug: key }, { title: "won the race" });
    });
    const report = await migrateRecords({ client, table, info, batch: 1000, dryRun: false });
    expect(report.counts).toMatchObject({ found: 1, failed: 0 });
    // The domain's own write stored the record whole and current: the migration re-read it and left it.
    expect(report.counts.retried).toBe(1);
    expect(report.counts.upgraded + report.counts.settledByOthers).toBe(1);
    expect(await raw(key)).toMatchObject({ title: "won the race", content: "text 1", __version: 2, [MODEL_VERSION_FIELD]: 2 });
  }, 60_000);

  it("a raw write (another program's) racing it is upgraded from its new state, not overwritten by the old one", async () => {
    const key = "race-2";
    await documentClient().send(new PutCommand({ TableName: table, Item: { ...v1Row(2), slug: key } }));
    const client = racedClient(key, async () => {
      await documentClient().send(new PutCommand({ TableName: table, Item: { ...v1Row(2), slug: key, body: "newer body", __version: 5 } }));
    });
    const report = await migrateRecords({ client, table, info, batch: 1000, dryRun: false });
    expect(report.counts).toMatchObject({ found: 1, upgraded: 1, retried: 1, failed: 0 });
    expect(report.counts.scanned).toBeGreaterThanOrEqual(2);
    expect(await raw(key)).toMatchObject({ content: "newer body", __version: 5, [MODEL_VERSION_FIELD]: 2 });
  }, 60_000);

  it("a write based on a read from before the migration still lands after it (the migration keeps __version, so If-Match holds)", async () => {
    const key = "race-3";
    await documentClient().send(new PutCommand({ TableName: table, Item: { ...v1Row(3), slug: key } }));
    const before = await app.domain.get(as(), info, { slug: key });
    await migrateRecords({ client: documentClient(), table, info, batch: 1000, dryRun: false });
    const written = await app.domain.patch(as(), info, { slug: key }, { summary: "after" }, { expectedVersion: before.version });
    expect(written.data).toMatchObject({ summary: "after", content: "text 3" });
    expect(await raw(key)).toMatchObject({ summary: "after", content: "text 3", __version: 2, [MODEL_VERSION_FIELD]: 2 });
  }, 60_000);
});
