import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Application } from "../core/application.ts";
import { contractProblems, recordContracts, type RecordContracts } from "../core/record-contract.ts";
import { renderCache, writeCache, type CacheRenderer } from "./cache.ts";

/** The file of schema-cache/ that records each model's stored shape at the last successful build. */
export const RECORDS_FILE = "records.json";

/** `schema-cache/records.json`: what the next build compares the models with. */
export const recordsCache: CacheRenderer = (app) => ({ [RECORDS_FILE]: `${JSON.stringify(recordContracts(app.models()), null, 2)}\n` });

async function previousContracts(dir: string): Promise<RecordContracts> {
  const text = await readFile(join(dir, RECORDS_FILE), "utf8").catch(() => undefined);
  return text === undefined ? {} : (JSON.parse(text) as RecordContracts);
}

/**
 * `webda build`: refuses, writing nothing, a change that would leave records already stored
 * outside the contract (a required field added with neither a default nor an upgrade step, a type
 * changed, allowed values narrowed: lib/core/record-contract.ts), judged against the records.json
 * of the last successful build; else writes the cache. Returns the exit code.
 */
export async function buildCache(
  app: Application,
  dir: string,
  renderers: CacheRenderer[],
  io: { out(t: string): void; err(t: string): void },
): Promise<number> {
  const problems = contractProblems(await previousContracts(dir), app.models());
  if (problems.length > 0) {
    io.err(
      `webda build: refused, schema-cache/ left as it was: ${problems.length} change${problems.length === 1 ? "" : "s"} would break records already stored`,
    );
    for (const problem of problems) io.err(`  ${problem}`);
    io.err("See docs/model-versions.md.");
    return 1;
  }
  const changed = await writeCache(dir, await renderCache(app, renderers));
  io.out(changed.length > 0 ? `schema-cache/: wrote ${changed.join(", ")}` : "schema-cache/: up to date");
  return 0;
}
