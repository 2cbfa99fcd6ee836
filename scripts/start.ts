// `npm start`: the whole service on this machine, no AWS account needed (see README).
import { fileURLToPath } from "node:url";
import { app } from "../app/index.ts";
import { renderCache, writeCache } from "../lib/cli/cache.ts";
import { cacheRenderers } from "../lib/cli/renderers.ts";
import { devIdpCompanion } from "../lib/local/dev-idp/companion.ts";
import { runLocal } from "../lib/local/run-local.ts";
import { serviceTables } from "../lib/cli/tables.ts";

// Node 20.19 is our documented floor locally (Lambda runs 22): the SDK's reminder that it will
// need 22 in 2027 is noise here. Set before any client exists; offline passes AWS_* on to handlers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const projectDir = fileURLToPath(new URL("..", import.meta.url));

try {
  // serverless.yml includes schema-cache/: offline must not serve routes the models no longer have.
  const changed = await writeCache(fileURLToPath(new URL("../schema-cache", import.meta.url)), await renderCache(app, cacheRenderers));
  if (changed.length > 0) {
    process.stdout.write(`warning: schema-cache/ was stale and has been regenerated (${changed.join(", ")}); commit it.\n`);
  }
  const code = await runLocal({
    projectDir,
    argv: process.argv.slice(2),
    tables: (prefix) => serviceTables(app, prefix),
    defaultTablePrefix: "blog-local-",
    // The sample's Idp signs in against a development OpenID provider on loopback (local stage only).
    companions: [devIdpCompanion(projectDir, (line) => process.stdout.write(`${line}\n`))],
  });
  process.exit(code);
} catch (error) {
  process.stderr.write(`npm start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
