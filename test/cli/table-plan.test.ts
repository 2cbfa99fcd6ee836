// Day two (docs/changing-a-deployed-application.md): a fixture application packaged as v1, a v2
// that adds two belongs-to relations and a sort index to Book, changes Review's key and renames
// Note to Memo. The templates are rendered by the renderer `serverless package` includes
// (lib/cli/infrastructure.ts, schema-cache/resources.json), not by packaging: a package of this
// fixture would take minutes for the same tables.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, ResourceNotFoundException } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { UnavailableError } from "../../lib/core/errors.ts";
import { describeModel } from "../../lib/core/model-info.ts";
import type { CfnTemplate } from "../../lib/core/serverless-host.ts";
import { dbCopy } from "../../lib/cli/db-copy.ts";
import { infrastructureCache } from "../../lib/cli/infrastructure.ts";
import { planCommand } from "../../lib/cli/plan/command.ts";
import { templateTables } from "../../lib/cli/plan/tables.mjs";
import { ensureTables } from "../../lib/local/tables.ts";
import { ensureIndexes } from "../../lib/local/table-indexes.ts";
import { localTablePlan } from "../../lib/local/table-plan.ts";
import { blocking } from "../../lib/cli/plan/diff.mjs";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { inProcess } from "../support/parts.ts";
import { tableDefinition, tableDefinitions } from "../../lib/store/dynamodb-tables.ts";
import { v1, Note, Review as ReviewV1 } from "./fixtures/day-two/v1.ts";
import { v2, Book as BookV2, Memo, Review as ReviewV2 } from "./fixtures/day-two/v2.ts";

/** What `serverless package --stage prod` puts in the root template for these tables. */
async function packaged(app: Application, prefix: string): Promise<CfnTemplate> {
  const files = await infrastructureCache(app);
  return JSON.parse((files["resources.json"] ?? "").replaceAll("${self:custom.tablePrefix}", prefix)) as CfnTemplate;
}

async function runPlan(app: Application, argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await planCommand(app, process.cwd(), { out: (l) => out.push(l), err: (l) => err.push(l) }).run(argv);
  return { code, out, err };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "day-two-"));
  await writeFile(join(dir, "cloudformation-template-update-stack.json"), JSON.stringify(await packaged(v1(), "day2-prod-")));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("webda plan: v1 deployed, v2 about to be", () => {
  it("lists every change, carries Book's three indexes one per step, refuses the key change and the rename with their commands", async () => {
    const steps = join(dir, "steps");
    const { code, out } = await runPlan(v2(), ["--stage", "prod", "--service", "day2", "--baseline", dir, "--steps-dir", steps]);
    const text = out.join("\n");
    expect(code).toBe(1);
    expect(text).toContain("BookTable (day2-prod-Book): changed");
    expect(text).toMatch(/step 1: create index by_genre: genre \(S\) \+ year \(N\)/);
    expect(text).toMatch(/step 2: create index by_author: author \(S\) \+ slug \(S\)/);
    expect(text).toMatch(/step 3: create index by_publisher: publisher \(S\) \+ slug \(S\)/);
    expect(text).toContain("NoteTable (day2-prod-Note): removed, renamed to day2-prod-Memo? (refused)");
    expect(text).toContain("MemoTable (day2-prod-Memo): added");
    expect(text).toContain("ReviewTable (day2-prod-Review): changed (refused)");
    expect(text).toContain("day2-prod-Review: its key changes (uuid (S) -> slug (S))");
    expect(text).toContain("run: npx webda db copy --from day2-prod-Note --to day2-prod-Memo");
    expect(text).toContain("run: serverless deploy --stage prod --param acceptTableChanges=NoteTable");
    expect(text).toContain("run: npx webda db copy --from day2-prod-Review --to <the new table>");
    // Nothing else moves: the unchanged tables are not listed.
    expect(text).not.toContain("AuthorTable");
    expect(text).toContain("3 step template(s) checked against");
    expect(text).toMatch(/3 step template\(s\) checked against .*: 0 errors/);

    // Each step differs from the one before by at most one index per table; the last is v2's tables.
    const files = (await readdir(steps)).sort();
    expect(files).toEqual(["step-1.json", "step-2.json", "step-3.json"]);
    let before = templateTables([JSON.parse(await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8")) as CfnTemplate]);
    for (const file of files) {
      const step = templateTables([JSON.parse(await readFile(join(steps, file), "utf8")) as CfnTemplate]);
      for (const [id, table] of step) {
        const old = new Set((before.get(id)?.indexes ?? []).map((i) => i.name));
        const now = new Set(table.indexes.map((i) => i.name));
        const changed = [...now].filter((n) => !old.has(n)).length + [...old].filter((n) => !now.has(n)).length;
        expect(before.has(id) ? changed : 0, `${file} ${id}`).toBeLessThanOrEqual(1);
      }
      before = step;
    }
    const target = templateTables([await packaged(v2(), "day2-prod-")]);
    expect(
      before
        .get("BookTable")
        ?.indexes.map((i) => i.name)
        .sort(),
    ).toEqual(
      target
        .get("BookTable")
        ?.indexes.map((i) => i.name)
        .sort(),
    );
  });

  it("accepting the rename leaves the key change refused; without the key change the plan deploys", async () => {
    const accepted = await runPlan(v2(), ["--stage", "prod", "--service", "day2", "--baseline", dir, "--accept", "NoteTable", "--accept", "ReviewTable"]);
    expect(accepted.code).toBe(1);
    expect(accepted.out.join("\n")).toContain("accepted removed of day2-prod-Note");
    expect(accepted.out.join("\n")).toContain("refused: 1 change(s)");
    // v1 again with Book's new indexes only (v2's Book beside v1's other models): deployable in 3 steps.
    const { Application } = await import("../../lib/core/application.ts");
    const { Author, Publisher } = await import("./fixtures/day-two/v1.ts");
    const indexesOnly = new Application({ name: "day2", version: "2", models: [Author, Publisher, BookV2, ReviewV1, Note], serviceTypes: [], services: {} });
    const ok = await runPlan(indexesOnly, ["--stage", "prod", "--service", "day2", "--baseline", dir]);
    expect(ok.code).toBe(0);
    expect(ok.out.join("\n")).toContain("3 steps: each `serverless deploy --stage prod` applies the next");
  });

  it("renders every table, the models' and the framework's own, retained on removal and on replacement", async () => {
    const tables = [...templateTables([await packaged(v2(), "day2-prod-")]).values()];
    expect(tables.length).toBeGreaterThan(5);
    expect(tables.filter((t) => !t.retained).map((t) => t.id)).toEqual([]);
  });

  it("says what is wrong with its arguments and its baseline", async () => {
    expect((await runPlan(v2(), ["--baseline", dir])).err).toEqual(["webda plan: --stage: which stage? (the baseline's) (webda plan --help)"]);
    const empty = await mkdtemp(join(tmpdir(), "day-two-empty-"));
    const missing = await runPlan(v2(), ["--stage", "prod", "--service", "day2", "--baseline", empty]);
    expect(missing.code).toBe(2);
    expect(missing.err[0]).toContain("holds no cloudformation-template-update-stack.json");
    await rm(empty, { recursive: true });
  });
});

describe("over DynamoDB Local: what v1 wrote, met by v2", () => {
  const admin = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: process.env.AWS_REGION });
  const prefix = `day2-${randomUUID().slice(0, 8)}-`;
  const env = { ...process.env };
  const lines: string[] = [];
  const copy = (argv: string[], out = (l: string) => void lines.push(l)) => dbCopy([...argv, "--endpoint", process.env.DYNAMODB_ENDPOINT ?? ""], env, out);
  let state: string;

  beforeAll(async () => {
    await ensureTables(admin, tableDefinitions(v1(), prefix));
    for (let i = 0; i < 230; i++) {
      await admin.send(new PutItemCommand({ TableName: `${prefix}Note`, Item: { uuid: { S: `n-${String(i).padStart(3, "0")}` }, text: { S: `note ${i}` } } }));
    }
    state = join(await mkdtemp(join(tmpdir(), "day-two-copy-")), "state.json");
  }, 120_000);
  afterAll(async () => {
    for (const name of ["Author", "Publisher", "Book", "Review", "Note", "Memo", "ReviewV2"]) {
      await admin.send(new DeleteTableCommand({ TableName: `${prefix}${name}` })).catch((e: unknown) => {
        if (!(e instanceof ResourceNotFoundException)) throw e;
      });
    }
    admin.destroy();
  });

  it("npm start -- --persist refuses what a deploy refuses: the key change and the renamed model's records", async () => {
    const plan = await localTablePlan(admin, prefix, tableDefinitions(v2(), prefix), {});
    expect(
      blocking(plan)
        .map((r) => `${r.id} ${r.kind}`)
        .sort(),
    ).toEqual(["NoteTable removed", "ReviewTable key"]);
    expect(blocking(plan).find((r) => r.id === "NoteTable")?.commands[0]).toBe("WEBDA_ACCEPT_TABLE_CHANGES=NoteTable npm start -- --persist");
    expect(plan.tables.find((t) => t.id === "BookTable")?.indexOps.map((o) => o.index)).toEqual(["by_genre", "by_author", "by_publisher"]);
    const accepted = await localTablePlan(admin, prefix, tableDefinitions(v2(), prefix), { WEBDA_ACCEPT_TABLE_CHANGES: "NoteTable" });
    expect(blocking(accepted).map((r) => r.id)).toEqual(["ReviewTable"]);
  });

  it("a query on an index not built yet answers 503 UNAVAILABLE with Retry-After, not a 500", async () => {
    const repository = new DynamoRepository(documentClient(), `${prefix}Book`, describeModel(BookV2).table);
    const error = await repository.findByField("author", ["a1"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", retryAfterSeconds: 60 });
    const pages = async () => {
      for await (const page of repository.findByFieldPages("author", ["a1"], { first: 1, largest: 10 })) return page;
    };
    await expect(pages()).rejects.toBeInstanceOf(UnavailableError);
    // Through the REST face: a list whose filter the index serves.
    const app = v2(inProcess).useStore(dynamoStore(prefix));
    const answer = await call(restHandler(app), httpEvent("PUT", "/books", { body: { q: "author = 'a1'" } }));
    expect(answer).toMatchObject({ statusCode: 503, headers: { "retry-after": "60" }, body: { code: 503 } });
    const graphql = await call(
      graphqlHandler(app, graphqlOptions(app)),
      httpEvent("POST", "/graphql", { body: { query: `{ Books(query: "author = 'a1'") { results { slug } } }` } }),
    );
    expect(graphql.body).toMatchObject({ errors: [{ extensions: { code: "UNAVAILABLE" } }] });
    // Once the index is there (npm start adds v2's one at a time), the same query answers.
    const added = await ensureIndexes(admin, [tableDefinition(describeModel(BookV2), prefix)]);
    expect(added).toEqual([`${prefix}Book.by_genre`, `${prefix}Book.by_author`, `${prefix}Book.by_publisher`]);
    expect(await repository.findByField("author", ["a1"])).toEqual([]);
  });

  it("webda db copy moves the renamed model's records: batches, progress, a resumed run, counts checked, nothing overwritten", async () => {
    await ensureTables(admin, [tableDefinition(describeModel(Memo), prefix)]);
    // Killed after its second page (the progress line is printed once a page is saved).
    let pagesSeen = 0;
    const killed = await copy(["--from", `${prefix}Note`, "--to", `${prefix}Memo`, "--batch", "50", "--state", state], (line) => {
      lines.push(line);
      if (/ read, /.test(line) && ++pagesSeen === 2) throw new Error("killed");
    });
    expect(killed).toBe(1);
    expect(JSON.parse(await readFile(state, "utf8"))).toMatchObject({ read: 100, copied: 100 });
    // A record the application wrote to the new table meanwhile is kept as it is.
    await admin.send(new PutItemCommand({ TableName: `${prefix}Memo`, Item: { uuid: { S: "n-200" }, text: { S: "edited in v2" } } }));
    lines.length = 0;
    expect(await copy(["--from", `${prefix}Note`, "--to", `${prefix}Memo`, "--batch", "50", "--state", state])).toBe(0);
    expect(lines[0]).toContain("resuming");
    expect(lines).toContain("webda db copy: 230 read, 229 copied, 1 already there");
    expect(lines).toContain(`webda db copy: counted 230 records in ${prefix}Note, 230 in ${prefix}Memo; 0 of the source's missing from the target`);
    expect((await admin.send(new DescribeTableCommand({ TableName: `${prefix}Note` }))).Table?.TableStatus).toBe("ACTIVE");
    // Run again from scratch: idempotent, and --drop-source drops only after the count.
    lines.length = 0;
    expect(await copy(["--from", `${prefix}Note`, "--to", `${prefix}Memo`, "--batch", "100", "--state", state, "--drop-source"])).toBe(0);
    expect(lines).toContain("webda db copy: 230 read, 0 copied, 230 already there");
    expect(lines.at(-1)).toBe(`webda db copy: dropped ${prefix}Note`);
    await expect(admin.send(new DescribeTableCommand({ TableName: `${prefix}Note` }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it("webda db copy into a table of a new key: a record without the new key's field fails the count and keeps the source", async () => {
    // The key change's path: the model under a new name (a new table keyed by slug).
    await ensureTables(admin, [{ ...tableDefinition(describeModel(ReviewV2), prefix), TableName: `${prefix}ReviewV2` }]);
    for (const [uuid, slug] of [
      ["r1", "first"],
      ["r2", "second"],
      ["r3", undefined],
    ] as const) {
      await admin.send(
        new PutItemCommand({ TableName: `${prefix}Review`, Item: { uuid: { S: uuid }, text: { S: "t" }, ...(slug ? { slug: { S: slug } } : {}) } }),
      );
    }
    lines.length = 0;
    const code = await copy(["--from", `${prefix}Review`, "--to", `${prefix}ReviewV2`, "--state", `${state}.review`, "--drop-source"]);
    expect(code).toBe(1);
    expect(lines).toContain(`webda db copy: 1 records of ${prefix}Review lack a field of ${prefix}ReviewV2's key (slug): not copied`);
    expect(lines).toContain(`webda db copy: incomplete: ${prefix}Review is kept; fix the records named above and run again`);
    expect((await admin.send(new DescribeTableCommand({ TableName: `${prefix}Review` }))).Table?.TableStatus).toBe("ACTIVE");
    // The record fixed (its slug set, as an upgrade would), the next run copies it and drops the source.
    await admin.send(new PutItemCommand({ TableName: `${prefix}Review`, Item: { uuid: { S: "r3" }, text: { S: "t" }, slug: { S: "third" } } }));
    lines.length = 0;
    expect(await copy(["--from", `${prefix}Review`, "--to", `${prefix}ReviewV2`, "--state", `${state}.review`, "--drop-source"])).toBe(0);
    expect(lines).toContain("webda db copy: 3 read, 1 copied, 2 already there");
  });

  it("webda db copy refuses bad arguments before touching a table", async () => {
    expect(await copy(["--from", `${prefix}Memo`, "--to", `${prefix}Memo`])).toBe(2);
    expect(await copy(["--from", `${prefix}Memo`, "--to", `${prefix}Other`, "--batch", "0"])).toBe(2);
    // A target the deploy has not created: a database error, the source untouched.
    expect(await copy(["--from", `${prefix}Memo`, "--to", `${prefix}Missing`, "--state", `${state}.missing`])).toBe(1);
  });
});
