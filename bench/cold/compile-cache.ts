import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Prepared } from "./section.ts";
import { coldEnv, coldStart } from "./spawn.ts";
import { checkAnswer } from "./variants.ts";

/**
 * The same bundle with V8's compile cache beside it (NODE_COMPILE_CACHE, as a packaged function
 * has it: scripts/compile-cache.ts), populated here by one cold start of its own, import and
 * request. Node keys the cache by the bundle's absolute path, its version, V8's flags and the
 * user: populated on this path by this Node, as packaging does for /var/task and the deployed one.
 */
export async function withCompileCache(p: Prepared, endpoint: string): Promise<Prepared> {
  const directory = join(dirname(p.bundle), `.node-compile-cache-${p.variant.entry.replace(/\W+/g, "_")}`);
  await rm(directory, { recursive: true, force: true });
  const variant = { ...p.variant, name: `${p.variant.name}, compile cache`, env: { ...p.variant.env, NODE_COMPILE_CACHE: directory } };
  // Node writes the cache as the process exits: this start fills it, every later one reads it.
  const first = await coldStart(p.bundle, p.event, coldEnv(endpoint, variant.env));
  checkAnswer(variant, first.status, first.body, " (populating its compile cache)");
  return { ...p, variant };
}
