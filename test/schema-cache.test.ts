import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import type { Application } from "../lib/core/application.ts";
import { renderCache, staleFiles, staleMessage } from "../lib/cli/cache.ts";
import { loadAppModule } from "../lib/cli/project.ts";
import { cacheRenderers } from "../lib/cli/renderers.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = join(root, "schema-cache");

// The project's application, whichever it is (package.json `webda.app`), as `npm run build` renders
// it: loaded, not imported, so that this check holds for any application (test/fixtures/blog/README.md).
it("schema-cache/ matches what the project's models generate (else: npm run build)", async () => {
  const { app } = (await loadAppModule(root)) as { app: Application };
  const stale = await staleFiles(cacheDir, await renderCache(app, cacheRenderers));
  if (stale.length > 0) throw new Error(staleMessage(stale));
  expect(stale).toEqual([]);
});
