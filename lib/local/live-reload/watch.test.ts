import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
  rmSync(root, { recursive: true, force: true });
});

function project(): string {
  root = mkdtempSync(join(tmpdir(), "live-reload-watch-"));
  mkdirSync(join(root, "app", "models"), { recursive: true });
  return root;
}

describe("watchSources", () => {
  it("turns a burst of saves into one call, ignoring tests and editor files", async () => {
    const dir = project();
    const calls: string[][] = [];
    stop = watchSources(dir, ["app"], async (files) => {
      calls.push(files);
    });
    writeFileSync(join(dir, "app", "models", "post.ts"), "a");
    writeFileSync(join(dir, "app", "index.ts"), "b");
    writeFileSync(join(dir, "app", "models", "post.test.ts"), "c");
    writeFileSync(join(dir, "app", "models", ".post.ts.swp"), "d");
    await waitFor(() => calls.length, (n) => n > 0, "a call", 5_000);
    await sleep(600);
    expect(calls).toEqual([["app/index.ts", "app/models/post.ts"]]);
  });

  it("never runs two calls at once: saves during a call make one more call afterwards", async () => {
    const dir = project();
    const calls: string[][] = [];
    let running = 0;
    let overlapped = false;
    stop = watchSources(dir, ["app"], async (files) => {
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
    await waitFor(() => calls.length, (n) => n >= 2, "a second call", 10_000);
    await sleep(600);
    expect(overlapped).toBe(false);
    expect(calls).toEqual([["app/first.ts"], ["app/second.ts", "app/third.ts"]]);
  });
});
