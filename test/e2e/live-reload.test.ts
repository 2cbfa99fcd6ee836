import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localDynamoDbClient } from "../../lib/local/local-aws.ts";
import { RELOAD_STAMP } from "../../lib/local/live-reload/loop.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { codeBlocks, readmeSection, type Block } from "../support/readme.ts";
import { waitFor } from "../support/wait.ts";

/**
 * `npm start`'s live reload, in a copy of the project: edits land while it runs, and each is
 * served without a restart of DynamoDB Local (a record created before the edits stays readable).
 * Edit-to-served times are printed against the issue's bar (10 s for a schema or policy edit, 20 s
 * for a new model), never asserted: the machine's load decides them.
 */

const SERVED_TIMEOUT_MS = 180_000;
const TAG = "app/models/tag.ts";
const ALICE = randomUUID();
const run = randomUUID().slice(0, 8);
const kept = `kept-${run}`;

let project: ProjectCopy | undefined;
let offline: Offline | undefined;
const timings: string[] = [];

async function call(method: string, path: string, body?: unknown, user?: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${offline?.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(user ? { "x-test-user": user } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

const tag = (slug: string, description: string): Record<string, string> => ({ slug, name: slug, description, color: "#3366ff" });

/** Writes the edit, then waits until `served` holds; prints how long that took. */
async function timeEdit(what: string, bar: number, edit: () => void, served: () => Promise<boolean>): Promise<void> {
  const began = Date.now();
  edit();
  await waitFor(served, Boolean, what, SERVED_TIMEOUT_MS);
  // The check's share (npm start prints it before serving); the rest is rebundling or offline's restart.
  const checked = [...(offline?.output() ?? "").matchAll(/live reload: checked in ([\d.]+ s)/g)].at(-1)?.[1] ?? "?";
  const line = `live reload: ${what} served ${((Date.now() - began) / 1000).toFixed(1)} s after the edit (bar ${bar} s; its check took ${checked})`;
  timings.push(line);
  process.stdout.write(`${line}\n`);
}

function databaseEndpoint(): string {
  const found = /DynamoDB Local on (http:\/\/\S+)/.exec(offline?.output() ?? "");
  if (!found?.[1]) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline?.output()}`);
  return found[1];
}

beforeAll(async () => {
  project = new ProjectCopy("live-reload");
  offline = await startOffline({ projectDir: project.dir, args: ["--empty"] });
  // The watch starts once offline's first bundle answers, a moment after /version does.
  await waitFor(() => offline?.output() ?? "", (out) => out.includes("live reload: watching app/"), "the watch to start", 30_000);
}, 400_000);

afterAll(async () => {
  await offline?.stop();
  project?.remove();
  if (timings.length > 0) process.stdout.write(`${timings.join("\n")}\n`);
}, 60_000);

describe("npm start serves edits of app/ without a restart", () => {
  it("watches through the stamp serverless.yml names, so only a checked edit is rebundled", () => {
    const yml = readFileSync(join(project?.dir ?? "", "serverless.yml"), "utf8");
    expect(yml).toContain(`pattern: ["${RELOAD_STAMP}"]`);
  });

  it("prints one line per request and no route table (npm start -- --routes shows it)", async () => {
    expect((await call("GET", `/tags/none-${run}`)).status).toBe(404);
    const path = `path=/tags/none-${run} `;
    await waitFor(() => offline?.output() ?? "", (out) => out.includes(path), "the request's line", 30_000);
    const out = offline?.output() ?? "";
    const lines = out.split("\n").filter((line) => line.includes(`none-${run}`));
    expect(lines).toEqual([expect.stringMatching(/^INFO +request .*method=GET path=\/tags\/none-\S+ .*status=404 durationMs=[\d.]+ dynamodbCalls=\d+/)]);
    expect(out).not.toMatch(/^METRIC /m);
    expect(out).not.toMatch(/\(λ: [\w-]+\)/);
    expect(out).not.toContain("Function names exposed");
    expect(out).not.toMatch(/^\s*│.*\| http:/m);
  });

  it("serves a schema edit and then a policy edit, keeping the data", { timeout: 2 * SERVED_TIMEOUT_MS }, async () => {
    const long = "x".repeat(50);
    expect((await call("POST", "/tags", tag(kept, long), ALICE)).status).toBe(200);

    // Schema: descriptions shrink to 20 characters; the stored 50-character one stays readable.
    await timeEdit("a schema edit", 10, () => project?.edit(TAG, [["description: Type.String({ maxLength: 2000 })", "description: Type.String({ maxLength: 20 })"]]), async () => {
      const created = await call("POST", "/tags", tag(`long-${randomUUID().slice(0, 8)}`, long), ALICE);
      return created.status === 400;
    });
    const refused = await call("POST", "/tags", tag(`long-${run}`, long), ALICE);
    expect(refused.json).toMatchObject({ code: 400, errors: [expect.objectContaining({ path: expect.stringContaining("description") })] });
    expect(await call("GET", `/tags/${kept}`)).toMatchObject({ status: 200, json: { slug: kept, description: long } });

    // Policy: tags become readable by signed-in users only (anonymous callers see a 404, as for a missing one).
    await timeEdit("a policy edit", 10, () => project?.edit(TAG, [
      ["description: Type.String({ maxLength: 2000 })", "description: Type.String({ maxLength: 20 })"],
      ['if (action === "read") return true;', 'if (action === "read") return signedIn(ctx);'],
    ]), async () => (await call("GET", `/tags/${kept}`)).status === 404);
    expect(await call("GET", `/tags/${kept}`, undefined, ALICE)).toMatchObject({ status: 200, json: { slug: kept } });
  });

  it("serves each save made by rename (sed -i, as vim and formatters save), repeated on the same file", { timeout: 2 * SERVED_TIMEOUT_MS }, async () => {
    const sedReplace = (from: string, to: string): void => {
      const text = readFileSync(join(project?.dir ?? "", TAG), "utf8");
      if (!text.includes(from)) throw new Error(`${TAG} has no '${from}' to replace: the test's edit is out of date`);
      execFileSync("sed", ["-i", `s/${from}/${to}/`, join(project?.dir ?? "", TAG)]);
    };
    const restricted = 'if (action === "read") return signedIn(ctx);';
    const open = 'if (action === "read") return true;';
    await timeEdit("a first rename-save", 10, () => sedReplace(restricted, open), async () => (await call("GET", `/tags/${kept}`)).status === 200);
    await timeEdit("a second rename-save of the same file", 10, () => sedReplace(open, restricted), async () => (await call("GET", `/tags/${kept}`)).status === 404);
  });

  it("says at once that a save no function reads changes nothing, and goes on watching", { timeout: SERVED_TIMEOUT_MS }, async () => {
    const unchanged = (): number => (offline?.output() ?? "").split("no function changed").length - 1;
    const before = unchanged();
    project?.write("app/notes.ts", "// imported by nothing\nexport const notes = 1;\n");
    await waitFor(unchanged, (n) => n > before, "the no-change report", SERVED_TIMEOUT_MS);
    expect(offline?.output()).not.toContain("no new bundle appeared");
  });

  it("serves a new model's routes and creates its table (README's Bookmark)", { timeout: SERVED_TIMEOUT_MS + 30_000 }, async () => {
    const model = codeBlocks(readmeSection("Add your own model")).find((b) => b.lang === "ts") as Block;
    await timeEdit("a new model", 20, () => {
      project?.write("app/models/bookmark.ts", model.code);
      appendFileSync(join(project?.dir ?? "", "app/models/index.ts"), 'export { Bookmark } from "./bookmark.ts";\n');
    }, async () => (await call("PUT", "/bookmarks", { q: "" }).catch(() => ({ status: 0 }))).status === 200);

    const created = await call("POST", "/bookmarks", { url: "https://example.com/", title: "Example" }, ALICE);
    expect(created).toMatchObject({ status: 200, json: { title: "Example", owner: ALICE } });
    const output = offline?.output() ?? "";
    expect(output).toMatch(/\+ routes .*\/bookmarks/);
    expect(output).toContain("+ table blog-local-Bookmark");
    const client = localDynamoDbClient(databaseEndpoint());
    try {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: "blog-local-Bookmark" }));
      expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toContain("by_owner");
    } finally {
      client.destroy();
    }
    // The data from before the restart of offline is still there: DynamoDB Local kept running.
    expect(await call("GET", `/tags/${kept}`, undefined, ALICE)).toMatchObject({ status: 200, json: { slug: kept } });
  });

  it("prints a change that does not compile and keeps serving the last good version", { timeout: SERVED_TIMEOUT_MS }, async () => {
    const refusals = (): number => (offline?.output() ?? "").split("the change does not load").length - 1;
    const before = refusals();
    const broken = `${readFileSync(join(project?.dir ?? "", TAG), "utf8")}\nexport const = ;\n`;
    project?.write(TAG, broken);
    await waitFor(refusals, (n) => n > before, "the error", SERVED_TIMEOUT_MS);
    const tail = (offline?.output() ?? "").split("the change does not load").at(-1) ?? "";
    expect(tail).toMatch(/still serving the last good version[\s\S]*tag\.ts/);
    // Given time to rebundle (it must not), the last good version answers: the policy edit included.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await call("GET", `/tags/${kept}`)).status).toBe(404);
    expect(await call("GET", `/tags/${kept}`, undefined, ALICE)).toMatchObject({ status: 200, json: { slug: kept } });
    expect((await call("PUT", "/bookmarks", { q: "" })).status).toBe(200);
  });
});
