import { appendFileSync, existsSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LIVE_RELOAD_LOG } from "../../lib/local/live-reload/loop.ts";

/**
 * What test/e2e/live-reload.test.ts reads of a project copy's live reload and does there: the
 * reload log npm start writes, the saves editors and tools make, and requests across restarts.
 */

export const count = (text: string, what: string): number => text.split(what).length - 1;

/** Every live-reload line npm start printed in `dir` (its log file: a test's copy of the output is truncated). */
export function readReloadLog(dir: string): string {
  return existsSync(join(dir, LIVE_RELOAD_LOG)) ? readFileSync(join(dir, LIVE_RELOAD_LOG), "utf8") : "";
}

/** Checks the reload loop started. */
export const checksIn = (log: string): number => count(log, "changed; checking");

/** Reloads that have finished, one way or another (served, nothing to serve, refused). */
export const outcomesIn = (log: string): number =>
  count(log, "live reload: serving the new version") +
  count(log, "live reload: no function changed") +
  count(log, "the change does not load") +
  count(log, "live reload: esbuild refused") +
  count(log, "did not come back") +
  count(log, "did not rebuild");

/** The last figures the reload printed: "check 1.2 s, 6 of 9 bundles rebuilt in 2.0 s", or the restart's. */
export function lastBreakdownIn(log: string): string {
  return (
    /serving the new version \([\d.]+ s: ([^)]*)\)/g.exec([...log.matchAll(/live reload: serving the new version \([^)]*\)/g)].at(-1)?.[0] ?? "")?.[1] ?? "?"
  );
}

/** The rebuilds a request after a reload waited for, as offline's plugin printed them. */
export function firstRequestRebuilds(log: string): string[] {
  return [...log.matchAll(/live reload: (\S+) rebuilt in ([\d.]+ s) \(for a request\)/g)].map((m) => `${m[1]} ${m[2]}`);
}

/** A save by rename: a temporary file (not a source by its name) renamed over the original, as vim, JetBrains and formatters save. */
export function saveRenamed(dir: string, file: string, text: string): void {
  const temporary = join(dir, `${file}.tmp~`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(dir, file));
}

/** A save in place: the file emptied, then written (two events on the same inode). */
export function saveTruncated(dir: string, file: string, text: string): void {
  truncateSync(join(dir, file), 0);
  appendFileSync(join(dir, file), text);
}

// The sample's tag model's states the edits move between.
export const TAG = "app/models/tag.ts";
const OPEN_READ = 'if (action === "read") return true;';
const SIGNED_IN_READ = 'if (action === "read") return signedIn(ctx);';
const LONG_DESCRIPTION = "description: Type.String({ maxLength: 2000 })";
const SHORT_DESCRIPTION = "description: Type.String({ maxLength: 20 })";

/** The tag model's `original` source with its description shortened and its reads signed in, as asked. */
export function tagModelSource(original: string, options: { shortDescription: boolean; signedInRead: boolean }): string {
  let text = original;
  for (const from of [OPEN_READ, LONG_DESCRIPTION]) {
    if (!text.includes(from)) throw new Error(`${TAG} has no '${from}' to replace: the test's edit is out of date`);
  }
  if (options.shortDescription) text = text.replace(LONG_DESCRIPTION, SHORT_DESCRIPTION);
  if (options.signedInRead) text = text.replace(OPEN_READ, SIGNED_IN_READ);
  return text;
}

/** A JSON request to the service at `url` as `user` (the test header), once more on a new connection if a restart closed its kept-alive one. */
export async function callService(url: string, method: string, path: string, body?: unknown, user?: string): Promise<{ status: number; json: unknown }> {
  const send = (): Promise<Response> =>
    fetch(`${url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(user ? { "x-test-user": user } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  const response = await send().catch((error: unknown) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    return send();
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}
