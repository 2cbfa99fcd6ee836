import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localDynamoDbClient } from "../../lib/local/local-aws.ts";
import { LIVE_RELOAD_DIR } from "../../lib/local/live-reload/loop.ts";
import {
  callService,
  checksIn,
  count,
  firstRequestRebuilds,
  lastBreakdownIn,
  outcomesIn,
  readReloadLog,
  saveRenamed,
  saveTruncated,
  TAG,
  tagModelSource,
} from "../support/live-reload-copy.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { codeBlocks, fileNameOf, readmeSection, type Block } from "../support/readme.ts";
import { waitFor } from "../support/wait.ts";
import { describeBrokenSaves } from "./broken-saves.suite.ts";

/**
 * `npm start`'s live reload, in a copy of the project: edits land while it runs, saved each way an
 * editor or a tool saves (renamed over, truncated and written, a new file, a deletion, a burst
 * over many files, a save made while npm start is still starting), each repeated on the same file,
 * and each is served without a restart of DynamoDB Local (a record created before the edits stays
 * readable). Edit-to-served times are printed with the reload's own breakdown, never asserted:
 * the machine's load decides them.
 */

const SERVED_TIMEOUT_MS = 180_000;
const ALICE = randomUUID();
const run = randomUUID().slice(0, 8);
const kept = `kept-${run}`;

let project: ProjectCopy | undefined;
let offline: Offline | undefined;
const timings: { what: string; seconds: number; breakdown: string }[] = [];
const clients: ChildProcess[] = [];

function dir(): string {
  if (!project) throw new Error("no project copy");
  return project.dir;
}

const reloadLog = (): string => readReloadLog(dir());
const checks = (): number => checksIn(reloadLog());
const outcomes = (): number => outcomesIn(reloadLog());
const lastBreakdown = (): string => lastBreakdownIn(reloadLog());
const saveByRename = (file: string, text: string): void => saveRenamed(dir(), file, text);
const saveByTruncate = (file: string, text: string): void => saveTruncated(dir(), file, text);
const tagSource = (options: { shortDescription: boolean; signedInRead: boolean }): string => tagModelSource(project?.original(TAG) ?? "", options);

const call = (method: string, path: string, body?: unknown, user?: string): Promise<{ status: number; json: unknown }> =>
  callService(offline?.url ?? "", method, path, body, user);
const status = async (method: string, path: string, body?: unknown, user?: string): Promise<number> =>
  (await call(method, path, body, user).catch(() => ({ status: 0 }))).status;

const tag = (slug: string, description: string): Record<string, string> => ({ slug, name: slug, description, color: "#3366ff" });

/** Saves, then waits until `served` holds; records how long that took with the reload's breakdown. */
async function timeEdit(what: string, edit: () => void, served: () => Promise<boolean>): Promise<void> {
  const finished = outcomes();
  const logged = reloadLog().length;
  const began = Date.now();
  edit();
  await waitFor(served, Boolean, what, SERVED_TIMEOUT_MS);
  const seconds = (Date.now() - began) / 1000;
  // npm start prints its result once it has seen offline answer, which may be after the test has.
  await waitFor(outcomes, (n) => n > finished, `the result line of ${what}`, 60_000);
  const rebuilds = firstRequestRebuilds(reloadLog().slice(logged));
  const breakdown = `${lastBreakdown()}${rebuilds.length > 0 ? `; requests waited for ${rebuilds.join(", ")}` : ""}`;
  timings.push({ what, seconds, breakdown });
  process.stdout.write(`live reload: ${what} served ${seconds.toFixed(1)} s after the save (${breakdown})\n`);
}

/** Waits until the reload loop has answered every check it started (it is idle). */
async function settled(): Promise<void> {
  await waitFor(
    () => [checks(), outcomes()],
    ([c, o]) => c === o,
    "the reload loop to finish its checks",
    SERVED_TIMEOUT_MS,
  );
}

function databaseEndpoint(): string {
  const found = /DynamoDB Local on (http:\/\/\S+)/.exec(offline?.output() ?? "");
  if (!found?.[1]) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline?.output()}`);
  return found[1];
}

/** The README's Bookmark model, renamed: a second new model for the save made while npm start starts. */
function readmeModel(): Block {
  return codeBlocks(readmeSection("Add your own model")).find((b) => b.lang === "ts") as Block;
}
const clipModel = (): string => readmeModel().code.replaceAll("Bookmark", "Clip").replaceAll("bookmark", "clip");

/** What the README's `node watch.mjs` printed. */
const watched = { stdout: "", stderr: "" };
const connections = (): number => count(watched.stdout, "connected: watching");
const post = (slug: string): Record<string, unknown> => ({ slug, title: `Title ${slug}`, content: "c", status: "published", viewCount: 0 });

/**
 * Publishes posts named `prefix-...` until watch.mjs prints one: its subscription is in place only
 * once the server has stored it, a moment after `connected`. One post per 10 s, not one per probe.
 */
async function seeEvent(prefix: string, timeout: number): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!watched.stdout.includes(prefix)) {
    if (Date.now() > deadline) throw new Error(`watch.mjs printed no ${prefix} event (stdout: ${watched.stdout}; stderr: ${watched.stderr})`);
    expect((await call("POST", "/posts", post(`${prefix}-${randomUUID().slice(0, 4)}`), ALICE)).status).toBe(200);
    await waitFor(() => watched.stdout.includes(prefix), Boolean, `${prefix}`, 10_000).catch(() => undefined);
  }
}

let clipSaved = 0;
let clipSavedBeforeWatch = false;

beforeAll(async () => {
  project = new ProjectCopy("live-reload");
  const copy = project;
  // A save made while npm start is still starting: as soon as it has read the sources and clears
  // the reload folder (just before serverless offline starts), a new model is added.
  const addClip = (async () => {
    await waitFor(() => existsSync(join(copy.dir, LIVE_RELOAD_DIR)), Boolean, "npm start to reach serverless offline's start", 300_000);
    copy.write("app/models/clip.ts", clipModel());
    appendFileSync(join(copy.dir, "app/models/index.ts"), 'export { Clip } from "./clip.ts";\n');
    clipSaved = Date.now();
    clipSavedBeforeWatch = !reloadLog().includes("watching");
  })();
  offline = await startOffline({ projectDir: copy.dir, args: ["--empty"] });
  await addClip;
}, 400_000);

afterAll(async () => {
  for (const client of clients) client.kill("SIGKILL");
  // What npm start printed, for a failure's post-mortem (the terminal shows only the test's report).
  if (offline) writeFileSync(join(tmpdir(), `live-reload-npm-start-${run}.log`), offline.output());
  await offline?.stop();
  project?.remove();
  if (timings.length > 0) {
    process.stdout.write(
      `\nlive reload figures (save to first request served; check = the fresh process's import of the app):\n${timings
        .map((t) => `  ${t.what}: ${t.seconds.toFixed(1)} s (${t.breakdown})`)
        .join("\n")}\n`,
    );
  }
}, 60_000);

describe("npm start serves each save of app/ without a restart of its database", () => {
  it("has serverless-esbuild watch nothing; the live-reload plugin rebuilds what a checked edit changes", () => {
    const yml = readFileSync(join(dir(), "serverless.yml"), "utf8");
    expect(yml).toMatch(/watch:\n\s+pattern: \[\]\n/);
    expect(yml).toMatch(/- serverless-esbuild\n(\s+#.*\n)*\s+- \.\/lib\/local\/live-reload\/offline-bundles\.mjs\n/);
  });

  it("prints one line per request and no route table (npm start -- --routes shows it)", async () => {
    expect((await call("GET", `/tags/none-${run}`)).status).toBe(404);
    const path = `path=/tags/none-${run} `;
    await waitFor(
      () => offline?.output() ?? "",
      (out) => out.includes(path),
      "the request's line",
      30_000,
    );
    const out = offline?.output() ?? "";
    const lines = out.split("\n").filter((line) => line.includes(`none-${run}`));
    expect(lines).toEqual([expect.stringMatching(/^INFO +request .*method=GET path=\/tags\/none-\S+ .*status=404 durationMs=[\d.]+ dynamodbCalls=\d+/)]);
    expect(out).not.toMatch(/^METRIC /m);
    expect(out).not.toMatch(/\(λ: [\w-]+\)/);
    expect(out).not.toContain("Function names exposed");
    expect(out).not.toMatch(/^\s*│.*\| http:/m);
  });

  it("serves a new model saved while npm start was still starting", { timeout: SERVED_TIMEOUT_MS + 60_000 }, async () => {
    expect(clipSaved).toBeGreaterThan(0);
    // Served once the reload has restarted offline with the model's routes. Before that, offline's
    // first bundles may already hold the model (they were built after the save) and answer its
    // paths through the catch-all route, without its routes or (until the reload creates it) its table.
    await waitFor(
      reloadLog,
      (log) => /live reload: serving the new version .*\n {2}\+ routes \/clips/.test(log),
      "the reload that adds the Clip model's routes",
      SERVED_TIMEOUT_MS + 60_000,
    );
    await waitFor(
      () => status("PUT", "/clips", { q: "" }),
      (s) => s === 200,
      "the Clip model saved during the start",
      30_000,
    );
    const seconds = (Date.now() - clipSaved) / 1000;
    const what = `a new model saved while npm start started (${clipSavedBeforeWatch ? "before" : "after"} the watch began)`;
    timings.push({ what, seconds, breakdown: lastBreakdown() });
    process.stdout.write(`live reload: ${what} served ${seconds.toFixed(1)} s after the save\n`);
    expect(await call("POST", "/clips", { url: "https://example.com/", title: "Clip" }, ALICE)).toMatchObject({ status: 200, json: { owner: ALICE } });
    await settled();
  });

  it("runs the README's subscription client, which sees events", { timeout: 150_000 }, async () => {
    // The README's own client, saved and run as the tour says (in the project, so its imports resolve).
    const watchBlock = codeBlocks(readmeSection("Quick tour")).find((b) => b.lang === "js") as Block;
    project?.write(fileNameOf(watchBlock), watchBlock.code);
    const client = spawn(process.execPath, [fileNameOf(watchBlock)], { cwd: dir(), stdio: ["ignore", "pipe", "pipe"] });
    clients.push(client);
    client.stdout?.on("data", (chunk: Buffer) => (watched.stdout += chunk.toString("utf8")));
    client.stderr?.on("data", (chunk: Buffer) => (watched.stderr += chunk.toString("utf8")));
    await waitFor(connections, (n) => n === 1, `watch.mjs to connect (stderr: ${watched.stderr})`, 60_000);
    await seeEvent(`before-${run}`, 120_000);
  });

  it("serves a schema edit and then a policy edit saved in place (truncate and write), keeping the data", { timeout: 2 * SERVED_TIMEOUT_MS }, async () => {
    const long = "x".repeat(50);
    expect((await call("POST", "/tags", tag(kept, long), ALICE)).status).toBe(200);

    // Schema: descriptions shrink to 20 characters; the stored 50-character one stays readable.
    await timeEdit(
      "a schema edit (truncate and write)",
      () => saveByTruncate(TAG, tagSource({ shortDescription: true, signedInRead: false })),
      async () => {
        return (await status("POST", "/tags", tag(`long-${randomUUID().slice(0, 8)}`, long), ALICE)) === 400;
      },
    );
    // Every bundle reads the model, none was rebuilt before the answer: a request rebuilds its own
    // function's bundle ahead of the background queue, which rebuilds the rest.
    const stale = /(\d+) of (\d+) bundles to rebuild, each at once when a request needs it/.exec(lastBreakdown());
    expect(stale?.[1], lastBreakdown()).toBeDefined();
    expect(stale?.[1]).toBe(stale?.[2]);
    await waitFor(
      () =>
        (
          reloadLog()
            .split("changed; checking")
            .at(-1)
            ?.match(/ rebuilt in [\d.]+ s \(/g) ?? []
        ).length,
      (n) => n >= Number(stale?.[1]),
      "every bundle rebuilt",
      SERVED_TIMEOUT_MS,
    );
    const refused = await call("POST", "/tags", tag(`long-${run}`, long), ALICE);
    expect(refused.json).toMatchObject({ code: 400, errors: [expect.objectContaining({ path: expect.stringContaining("description") })] });
    expect(await call("GET", `/tags/${kept}`)).toMatchObject({ status: 200, json: { slug: kept, description: long } });

    // Policy, the same file saved the same way again: tags readable by signed-in users only
    // (anonymous callers see a 404, as for a missing one).
    await timeEdit(
      "a policy edit (truncate and write, same file)",
      () => saveByTruncate(TAG, tagSource({ shortDescription: true, signedInRead: true })),
      async () => (await status("GET", `/tags/${kept}`)) === 404,
    );
    expect(await call("GET", `/tags/${kept}`, undefined, ALICE)).toMatchObject({ status: 200, json: { slug: kept } });
    await settled();
  });

  it("serves each save made by rename (atomic save), repeated on the same file", { timeout: 2 * SERVED_TIMEOUT_MS }, async () => {
    await timeEdit(
      "a policy edit (rename over)",
      () => saveByRename(TAG, tagSource({ shortDescription: true, signedInRead: false })),
      async () => (await status("GET", `/tags/${kept}`)) === 200,
    );
    await timeEdit(
      "a policy edit (rename over, same file again)",
      () => saveByRename(TAG, tagSource({ shortDescription: true, signedInRead: true })),
      async () => (await status("GET", `/tags/${kept}`)) === 404,
    );
    await settled();
  });

  it("sees a new file and its deletion, twice over, and says at once that nothing a function reads changed", { timeout: SERVED_TIMEOUT_MS }, async () => {
    const notes = "app/notes.ts";
    for (const round of [1, 2]) {
      for (const save of ["create", "delete"] as const) {
        const before = { checks: checks(), unchanged: count(reloadLog(), "no function changed") };
        if (save === "create") project?.write(notes, `// imported by nothing (round ${round})\nexport const notes = ${round};\n`);
        else unlinkSync(join(dir(), notes));
        await waitFor(
          () => count(reloadLog(), "no function changed"),
          (n) => n > before.unchanged,
          `the report of ${save} ${notes}, round ${round}`,
          SERVED_TIMEOUT_MS,
        );
        await settled();
        // One reload per save, naming the file.
        expect(checks(), `${save} ${notes}, round ${round}`).toBe(before.checks + 1);
        expect(reloadLog().split("changed; checking").at(-2)?.split("\n").at(-1)).toContain(notes);
      }
    }
    expect(reloadLog()).not.toContain("did not rebuild");
  });

  it("makes one reload of the final state for a burst of saves over many files (a formatter run)", { timeout: SERVED_TIMEOUT_MS }, async () => {
    await settled();
    const before = checks();
    const others = ["app/models/post.ts", "app/models/comment.ts", "app/models/user.ts", "app/models/policy.ts"];
    const began = Date.now();
    // The tag model passes through a state that does not load; only the final one may be checked.
    saveByTruncate(TAG, `${tagSource({ shortDescription: true, signedInRead: false })}\nexport const = ;\n`);
    for (const file of others) saveByRename(file, readFileSync(join(dir(), file), "utf8"));
    saveByRename(TAG, tagSource({ shortDescription: true, signedInRead: false }));
    await waitFor(
      () => status("GET", `/tags/${kept}`),
      (s) => s === 200,
      "the burst's final state",
      SERVED_TIMEOUT_MS,
    );
    const seconds = (Date.now() - began) / 1000;
    timings.push({ what: "a burst of 6 saves over 5 files", seconds, breakdown: lastBreakdown() });
    process.stdout.write(`live reload: a burst of saves served ${seconds.toFixed(1)} s after the first save\n`);
    await settled();
    expect(checks()).toBe(before + 1);
    const burst = reloadLog().split("changed; checking").at(-2)?.split("\n").at(-1) ?? "";
    for (const file of [TAG, ...others]) expect(burst).toContain(file);
    expect(reloadLog().split("changed; checking").at(-1)).not.toContain("does not load");
  });

  it(
    "serves a new model (README's Bookmark); the README's subscription client, kept connected through the rebuilds, reconnects through offline's restart and sees the next event",
    { timeout: SERVED_TIMEOUT_MS + 90_000 },
    async () => {
      // Every reload so far rebuilt bundles under the running offline: the client's socket stayed open.
      expect(connections()).toBe(1);
      await timeEdit(
        "a new model (README's Bookmark; offline restarts)",
        () => {
          project?.write("app/models/bookmark.ts", readmeModel().code);
          appendFileSync(join(dir(), "app/models/index.ts"), 'export { Bookmark } from "./bookmark.ts";\n');
        },
        async () => (await status("PUT", "/bookmarks", { q: "" })) === 200,
      );

      // The client lost its socket with the old offline, and got a new one on the new offline.
      await waitFor(connections, (n) => n >= 2, `watch.mjs to reconnect (stdout: ${watched.stdout}; stderr: ${watched.stderr})`, 60_000);
      const after = `after-${run}`;
      await waitFor(
        async () => {
          if (!watched.stdout.includes(after)) await call("POST", "/posts", post(`${after}-${randomUUID().slice(0, 4)}`), ALICE);
          return watched.stdout.includes(after);
        },
        Boolean,
        `watch.mjs to print an event after the restart (stdout: ${watched.stdout}; stderr: ${watched.stderr})`,
        90_000,
      );
      expect(watched.stdout).toMatch(new RegExp(`^CREATED ${after}-\\w+ by`, "m"));

      const created = await call("POST", "/bookmarks", { url: "https://example.com/", title: "Example" }, ALICE);
      expect(created).toMatchObject({ status: 200, json: { title: "Example", owner: ALICE } });
      const log = reloadLog();
      expect(log).toMatch(/\+ routes .*\/bookmarks/);
      expect(log).toContain("+ table blog-local-Bookmark");
      const db = localDynamoDbClient(databaseEndpoint());
      try {
        const { Table } = await db.send(new DescribeTableCommand({ TableName: "blog-local-Bookmark" }));
        expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toContain("by_owner");
      } finally {
        db.destroy();
      }
      // The data from before the restart of offline is still there: DynamoDB Local kept running.
      expect(await call("GET", `/tags/${kept}`, undefined, ALICE)).toMatchObject({ status: 200, json: { slug: kept } });
      await settled();
    },
  );

  it("prints a change that does not compile and keeps serving the last good version", { timeout: SERVED_TIMEOUT_MS }, async () => {
    await settled();
    const refusals = (): number => count(reloadLog(), "the change does not load");
    const before = refusals();
    const requestFile = join(dir(), LIVE_RELOAD_DIR, "request.json");
    const requested = existsSync(requestFile) ? statSync(requestFile).mtimeMs : 0;
    saveByRename(TAG, `${tagSource({ shortDescription: true, signedInRead: false })}\nexport const = ;\n`);
    await waitFor(refusals, (n) => n > before, "the error", SERVED_TIMEOUT_MS);
    await settled();
    const tail = reloadLog().split("the change does not load").at(-1) ?? "";
    expect(tail).toMatch(/still serving the last good version[\s\S]*tag\.ts/);
    // Nothing was asked of offline: no rebuild request since the save, and the last good version answers.
    expect(existsSync(requestFile) ? statSync(requestFile).mtimeMs : 0).toBe(requested);
    expect((await call("GET", `/tags/${kept}`)).status).toBe(200);
    expect((await call("PUT", "/bookmarks", { q: "" })).status).toBe(200);
  });
});

// Its saves in this start, once the ones above are done (the last leaves reads open, then a syntax error).
describeBrokenSaves({ offline: () => offline, project: () => project });
