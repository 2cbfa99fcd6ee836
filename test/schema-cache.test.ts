import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { app } from "../app/index.ts";
import { renderCache, staleFiles, staleMessage } from "../lib/cli/cache.ts";
import { cacheRenderers } from "../lib/cli/renderers.ts";

const cacheDir = join(dirname(fileURLToPath(import.meta.url)), "..", "schema-cache");

it("schema-cache/ matches what the models generate (else: npm run build)", async () => {
  const stale = await staleFiles(cacheDir, await renderCache(app, cacheRenderers));
  if (stale.length > 0) throw new Error(staleMessage(stale));
  expect(stale).toEqual([]);
});
