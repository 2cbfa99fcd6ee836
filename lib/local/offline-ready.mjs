// @ts-check
// A local serverless plugin for `serverless offline` only, listed before every other offline
// plugin. `npm start` spawns offline while DynamoDB Local starts and the sample is seeded, so that
// serverless loads and esbuild bundles the functions meanwhile; offline's servers (and the streams
// plugin, which reads the tables) start only once npm start writes "ready" on the pipe it names in
// MODELREST_READY_FD. Without that variable (offline started by hand) nothing is held.
//
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { createReadStream } from "node:fs";
/** @import { Serverless, ServerlessPlugin } from "../core/serverless-host.ts" */

export const READY_FD_ENV = "MODELREST_READY_FD";
export const READY_LINE = "ready";

/**
 * Resolves once `fd` carries the line "ready"; rejects when it ends first (npm start failed to
 * prepare the database, and says why itself) or carries anything else.
 * @param {number} fd
 * @returns {Promise<void>}
 */
export function readyOn(fd) {
  return new Promise((resolve, reject) => {
    const input = createReadStream("", { fd, encoding: "utf8" });
    let text = "";
    input.on("data", (chunk) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end === -1) return;
      input.destroy();
      const line = text.slice(0, end);
      if (line === READY_LINE) resolve();
      else reject(new Error(`npm start did not get the database ready: ${line}`));
    });
    input.on("end", () => reject(new Error("npm start did not get the database ready")));
    input.on("error", reject);
  });
}

/** @implements {ServerlessPlugin} */
export default class OfflineReadyPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    /** @type {Promise<void> | undefined} */
    this.ready = undefined;
    const wait = () => this.wait();
    this.hooks = { "offline:start:init": wait, "offline:start": wait };
  }

  /** @returns {Promise<void>} */
  wait() {
    const fd = process.env[READY_FD_ENV];
    if (fd === undefined || fd === "") return Promise.resolve();
    // Read once, whichever of the two lifecycle events this offline command fires.
    this.ready ??= readyOn(Number(fd));
    return this.ready;
  }
}
