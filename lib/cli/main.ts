import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
// The one import of app/ from lib/: this file is the `webda` command's entry point (bin/webda.mjs,
// `npm run build`, the packaging check run it), which composes the sample application as
// functions/ do; the rest of lib/cli takes the application as an argument.
// eslint-disable-next-line layers/order -- an entry point composes the application (see above)
import { app } from "../../app/index.ts";
import { generateSigningJwk } from "../auth/index.ts";
import { useRuntimeCompiler } from "../core/validation-compiler.ts";
import { cacheRenderers } from "./renderers.ts";
import { renderCache, staleFiles, staleMessage, writeCache } from "./cache.ts";
import { authMigrate, MIGRATE_USAGE } from "./auth-migrate.ts";

// The CLI validates (e.g. seeding) with schemas it compiles itself.
useRuntimeCompiler();

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// Overridable so that the staleness check itself can be tested against a doctored copy.
const cacheDir = process.env.SCHEMA_CACHE_DIR ?? join(root, "schema-cache");

const usage = `usage: webda <command>
  build     regenerate schema-cache/ from the models (GraphQL SDL, routes, functions, tables, OpenAPI)
  check     fail when schema-cache/ is stale
  keygen    print a new Ed25519 private JWK for --param authSigningKey (access-token signing key)
  auth migrate [--dryRun] [--batch N] [--json]
            upgrade v3 authentication data to v4 (webda auth migrate --help)`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === "build") {
    const files = await renderCache(app, cacheRenderers);
    const changed = await writeCache(cacheDir, files);
    console.log(changed.length > 0 ? `schema-cache/: wrote ${changed.join(", ")}` : "schema-cache/: up to date");
    return 0;
  }
  if (command === "check") {
    const stale = await staleFiles(cacheDir, await renderCache(app, cacheRenderers));
    if (stale.length > 0) {
      console.error(staleMessage(stale));
      return 1;
    }
    console.log("schema-cache/: up to date");
    return 0;
  }
  if (command === "keygen") {
    const jwk = generateSigningJwk();
    console.log(JSON.stringify({ ...jwk, kid: new Date().toISOString().slice(0, 10) }));
    return 0;
  }
  if (command === "auth" && argv[1] === "migrate") {
    if (argv.includes("--help") || argv.includes("-h")) {
      console.log(MIGRATE_USAGE);
      return 0;
    }
    return authMigrate(app, argv.slice(2));
  }
  console.error(usage);
  return command === undefined || command === "help" || command === "--help" ? 0 : 2;
}

process.exitCode = await main(process.argv.slice(2));
