import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { READY_FD_ENV } from "./offline-ready.mjs";

const PLUGIN = new URL("./offline-ready.mjs", import.meta.url).href;

/**
 * Runs the plugin's hook in a child process whose descriptor 3 is a pipe from this one, as
 * `spawnOffline` gives it, then `write`s to that pipe; resolves with how the hook ended.
 */
function holdChild(
  write: (pipe: NodeJS.WritableStream) => void,
  env: NodeJS.ProcessEnv = { [READY_FD_ENV]: "3" },
): Promise<{ code: number | null; output: string }> {
  const script = `
    const { default: Plugin } = await import(${JSON.stringify(PLUGIN)});
    const plugin = new Plugin({});
    // Both lifecycle events may fire: the pipe is read once.
    await Promise.all([plugin.hooks["offline:start:init"](), plugin.hooks["offline:start"]()]).then(
      () => console.log("released"),
      (error) => { console.log("refused: " + error.message); process.exit(1); },
    );`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, [READY_FD_ENV]: "", ...env },
    stdio: ["ignore", "pipe", "inherit", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const pipe = child.stdio[3];
  if (!pipe || !("write" in pipe)) throw new Error("no pipe on descriptor 3");
  write(pipe);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output: output.trim() })));
}

describe("offline held until npm start's database is ready (offline-ready.mjs)", () => {
  it("releases offline's start on the line 'ready', even when it comes in pieces", async () => {
    const ended = await holdChild((pipe) => {
      pipe.write("rea");
      setTimeout(() => pipe.write("dy\n"), 100);
    });
    expect(ended).toEqual({ code: 0, output: "released" });
  });

  it("fails offline's start when npm start closes the pipe without a word (it could not prepare the database)", async () => {
    const ended = await holdChild((pipe) => pipe.end());
    expect(ended).toEqual({ code: 1, output: "refused: npm start did not get the database ready" });
  });

  it("fails it on any other line", async () => {
    const ended = await holdChild((pipe) => pipe.end("stop\n"));
    expect(ended).toEqual({ code: 1, output: "refused: npm start did not get the database ready: stop" });
  });

  it("holds nothing when offline was not started by npm start (no descriptor named)", async () => {
    const ended = await holdChild(() => undefined, {});
    expect(ended).toEqual({ code: 0, output: "released" });
  });
});
