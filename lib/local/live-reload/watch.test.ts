import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../../test/support/wait.ts";
import { watchSources } from "./watch.ts";

let root = "";
let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
  rmSync(root, { recursive: true, force: true });
});

function project(): string {
  root = mkdtempSync(join(tmpdir(), "live-reload-watch-"));
  mkdirSync(join(root, "app", "models"), { recursive: true });
  return root;
}

/** Watches `dir`/app, recording each call with what the changed files held when it ran. */
async function record(dir: string, since?: number): Promise<{ files: string[]; seen: Record<string, string | null> }[]> {
  const calls: { files: string[]; seen: Record<string, string | null> }[] = [];
  stop = await watchSources(
    dir,
    ["app"],
    async (files) => {
      const seen: Record<string, string | null> = {};
      for (const file of files) {
        try {
          seen[file] = readFileSync(join(dir, file), "utf8");
        } catch {
          seen[file] = null;
        }
      }
      calls.push({ files, seen });
    },
    { since },
  );
  return calls;
}

const POST = join("app", "models", "post.ts");

/** Each way an editor or a tool saves a file, applied to app/models/post.ts with `text`. */
const saveStyles: [string, (dir: string, text: string) => void][] = [
  [
    "sed -i (a temporary file renamed over the original)",
    (dir, text) => {
      execFileSync("sed", ["-i", `1s/.*/${text}/`, join(dir, POST)]);
    },
  ],
  [
    "an atomic save (write a temporary file, rename it over)",
    (dir, text) => {
      const temporary = join(dir, "app", "models", ".post.ts.tmp~");
      writeFileSync(temporary, text);
      renameSync(temporary, join(dir, POST));
    },
  ],
  ["truncate and write", (dir, text) => writeFileSync(join(dir, POST), text)],
];

describe("watchSources", () => {
  for (const [style, save] of saveStyles) {
    it(`sees every save by ${style}, repeated on the same file, with its final text`, async () => {
      const dir = project();
      writeFileSync(join(dir, POST), "v0");
      const calls = await record(dir);
      for (let version = 1; version <= 3; version += 1) {
        save(dir, `v${version}`);
        await waitFor(
          () => calls.length,
          (n) => n >= version,
          `the reload of save ${version}`,
          10_000,
        );
        expect(calls[version - 1]).toEqual({ files: [POST], seen: { [POST]: `v${version}` } });
      }
    });
  }

  it("sees a new file, its edit and its deletion, each once", async () => {
    const dir = project();
    const calls = await record(dir);
    const file = join("app", "models", "tag.ts");
    writeFileSync(join(dir, file), "created");
    await waitFor(
      () => calls.length,
      (n) => n >= 1,
      "the new file",
      10_000,
    );
    execFileSync("sed", ["-i", "s/created/edited/", join(dir, file)]);
    await waitFor(
      () => calls.length,
      (n) => n >= 2,
      "the edit",
      10_000,
    );
    unlinkSync(join(dir, file));
    await waitFor(
      () => calls.length,
      (n) => n >= 3,
      "the deletion",
      10_000,
    );
    expect(calls).toEqual([
      { files: [file], seen: { [file]: "created" } },
      { files: [file], seen: { [file]: "edited" } },
      { files: [file], seen: { [file]: null } },
    ]);
  });

  it("watches a folder created after it started, and saves by rename in it", async () => {
    const dir = project();
    const calls = await record(dir);
    const file = join("app", "billing", "invoice.ts");
    mkdirSync(join(dir, "app", "billing"));
    writeFileSync(join(dir, file), "one");
    await waitFor(
      () => calls.length,
      (n) => n >= 1,
      "the new folder's file",
      10_000,
    );
    execFileSync("sed", ["-i", "s/one/two/", join(dir, file)]);
    await waitFor(
      () => calls.map((c) => c.seen[file]),
      (seen) => seen.includes("two"),
      "the rename-save in the new folder",
      10_000,
    );
    execFileSync("sed", ["-i", "s/two/three/", join(dir, file)]);
    await waitFor(
      () => calls.map((c) => c.seen[file]),
      (seen) => seen.includes("three"),
      "the second rename-save",
      10_000,
    );
  });

  it("turns a burst of saves across files (a formatter run) into one call, ignoring tests and editor files", async () => {
    const dir = project();
    writeFileSync(join(dir, POST), "v0");
    const calls = await record(dir);
    execFileSync("sed", ["-i", "s/v0/v1/", join(dir, POST)]);
    writeFileSync(join(dir, "app", "index.ts"), "b");
    writeFileSync(join(dir, "app", "models", "post.test.ts"), "c");
    writeFileSync(join(dir, "app", "models", ".post.ts.swp"), "d");
    execFileSync("sed", ["-i", "s/v1/v2/", join(dir, POST)]);
    await waitFor(
      () => calls.length,
      (n) => n > 0,
      "a call",
      10_000,
    );
    // Long enough for a second call, were the burst split (the debounce is 250 ms).
    await sleep(1_000);
    expect(calls).toEqual([{ files: ["app/index.ts", POST], seen: { "app/index.ts": "b", [POST]: "v2" } }]);
  });

  it("counts saves made before it started, since the sources were read, as one change", async () => {
    const dir = project();
    writeFileSync(join(dir, "app", "index.ts"), "old");
    await sleep(50);
    const read = Date.now();
    await sleep(50);
    writeFileSync(join(dir, POST), "saved while starting");
    const calls = await record(dir, read);
    await waitFor(
      () => calls.length,
      (n) => n > 0,
      "the early save",
      10_000,
    );
    await sleep(1_000);
    expect(calls).toEqual([{ files: [POST], seen: { [POST]: "saved while starting" } }]);
  });

  it("never runs two calls at once: saves during a call make one more call afterwards", async () => {
    const dir = project();
    const calls: string[][] = [];
    let running = 0;
    let overlapped = false;
    stop = await watchSources(dir, ["app"], async (files) => {
      running += 1;
      overlapped ||= running > 1;
      calls.push(files);
      if (calls.length === 1) {
        writeFileSync(join(dir, "app", "second.ts"), "x");
        writeFileSync(join(dir, "app", "third.ts"), "y");
        await sleep(800);
      }
      running -= 1;
    });
    writeFileSync(join(dir, "app", "first.ts"), "z");
    await waitFor(
      () => calls.length,
      (n) => n >= 2,
      "a second call",
      10_000,
    );
    await sleep(600);
    expect(overlapped).toBe(false);
    expect(calls).toEqual([["app/first.ts"], ["app/second.ts", "app/third.ts"]]);
  });
});
