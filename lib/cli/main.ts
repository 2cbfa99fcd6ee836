import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import type { Application } from "../core/application.ts";
import { generateSigningJwk, publicKeySet } from "../auth/index.ts";
import { domainListing } from "../core/list.ts";
import { runtimeValidation } from "../core/validation-compiler.ts";
import { cacheRenderers } from "./renderers.ts";
import { renderCache, staleFiles, staleMessage } from "./cache.ts";
import { buildCache } from "./records-cache.ts";
import { authMigrate, MIGRATE_USAGE } from "./auth-migrate.ts";
import { dbDelete, DB_DELETE_USAGE } from "./db-delete.ts";
import { dbCopy, DB_COPY_USAGE } from "./db-copy.ts";
import { planCommand } from "./plan/command.ts";
import { dbMigrate, DB_MIGRATE_USAGE } from "./db-migrate.ts";
import { runCommand, type Command } from "./commands.ts";
import { validateCommand } from "./validate/command.ts";
import { loadCreateApp, readProject } from "./project.ts";
import { newCommand } from "./new/command.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// Overridable so that the staleness check itself can be tested against a doctored copy.
const cacheDir = process.env.SCHEMA_CACHE_DIR ?? join(root, "schema-cache");
const project = readProject(root);
const version = project.version;

/**
 * The project's application (package.json `webda.app`), built for the commands that need it only:
 * the CLI validates (e.g. the migration's users) with schemas it compiles itself, and lists.
 */
let built: Application | undefined;
async function app(): Promise<Application> {
  built ??= (await loadCreateApp(root, project))({ validation: runtimeValidation(), listing: domainListing });
  return built;
}

const commands: Command[] = [
  {
    name: "build",
    summary: "regenerate schema-cache/ from the models (GraphQL SDL, routes, functions, tables, OpenAPI)",
    usage:
      "usage: webda build\n\nRegenerates schema-cache/ from the application's models (package.json `webda.app`) and prints the files it wrote. Refuses (exit 1)\na model change that would leave stored records outside the contract (see docs/model-versions.md).",
    run: async () => buildCache(await app(), cacheDir, cacheRenderers, { out: console.log, err: console.error }),
  },
  {
    name: "check",
    summary: "fail when schema-cache/ is stale",
    usage: "usage: webda check\n\nExits 1 and names the stale files when schema-cache/ differs from what `webda build` would write.",
    async run() {
      const stale = await staleFiles(cacheDir, await renderCache(await app(), cacheRenderers));
      if (stale.length > 0) {
        console.error(staleMessage(stale));
        return 1;
      }
      console.log("schema-cache/: up to date");
      return 0;
    },
  },
  {
    name: "keygen",
    summary: "print a new Ed25519 private JWK (access-token signing key), or with --public the public set of one read from stdin",
    usage: [
      "usage: webda keygen [--public]",
      "",
      "Prints a new Ed25519 private JWK: store it as the SSM SecureString that `--param authSigningKeyParameter` names.",
      "--public reads a private JWK (or JWK set) on stdin and prints its public set, for `--param authPublicKeys`.",
    ].join("\n"),
    takesOptions: true,
    async run(argv) {
      const unknown = argv.find((arg) => arg !== "--public");
      if (unknown !== undefined) {
        console.error(`webda keygen: unknown option '${unknown}' (webda keygen --help)`);
        return 2;
      }
      if (argv.includes("--public")) {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        try {
          console.log(JSON.stringify(publicKeySet(Buffer.concat(chunks).toString("utf8"))));
          return 0;
        } catch (error) {
          // The message names what is wrong with the input, never echoes it (it is a private key).
          console.error(`webda keygen --public: ${(error as Error).message.replace(/^AUTH_SIGNING_KEY/, "stdin")}`);
          return 2;
        }
      }
      const jwk = generateSigningJwk();
      console.log(JSON.stringify({ ...jwk, kid: new Date().toISOString().slice(0, 10) }));
      return 0;
    },
  },
  {
    name: "auth migrate",
    summary: "upgrade v3 authentication data to v4 (webda auth migrate --help)",
    usage: MIGRATE_USAGE,
    takesOptions: true,
    run: async (argv) => authMigrate(await app(), argv),
  },
  {
    name: "db delete",
    summary: "delete one row by its key (e.g. a malformed ident the migration stopped at)",
    usage: DB_DELETE_USAGE,
    takesOptions: true,
    run: (argv) => dbDelete(argv),
  },
  {
    name: "db copy",
    summary: "copy a table's records into another (a renamed model, a new key): resumable, counted, the source kept",
    usage: DB_COPY_USAGE,
    takesOptions: true,
    run: (argv) => dbCopy(argv),
  },
  {
    name: "db migrate",
    summary: "upgrade stored records to their model's current version and defaults",
    usage: DB_MIGRATE_USAGE,
    takesOptions: true,
    run: async (argv) => dbMigrate(await app(), argv),
  },
  validateCommand,
  planCommand(app, root),
  newCommand(root),
];

process.exitCode = await runCommand(commands, process.argv.slice(2), { program: "webda", version });
