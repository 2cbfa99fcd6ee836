// `npm start`: the whole service on this machine, no AWS account needed (see README).
import { fileURLToPath } from "node:url";
import { renderCache, writeCache } from "../lib/cli/cache.ts";
import { cacheRenderers } from "../lib/cli/renderers.ts";
import { devIdpCompanion, devIdpPort } from "../lib/local/dev-idp/companion.ts";
import { serviceTables } from "../lib/cli/tables.ts";
import { banner } from "../lib/local/banner.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../lib/local/local-aws.ts";
import { OFFLINE_PORTS } from "../lib/local/offline.ts";
import { LOCAL_HOST } from "../lib/local/ports.ts";
import { runLocal } from "../lib/local/run-local.ts";
import { localSecret } from "../lib/core/local-secret.ts";
import { domainListing } from "../lib/core/list.ts";
import { runtimeValidation } from "../lib/core/validation-compiler.ts";
import type { Application } from "../lib/core/application.ts";
import { IdpProvider } from "../lib/auth/idp/provider.ts";
import { seedCredentials } from "../lib/local/seed-credentials.ts";
import { runSeed } from "../lib/local/seed-run.ts";
import { join } from "node:path";
import { loadAppModule, readProject } from "../lib/cli/project.ts";
import type { SeedData } from "../lib/local/seed-data.ts";
import type { CreateApp } from "../lib/cli/project.ts";

const projectDir = fileURLToPath(new URL("..", import.meta.url));
// Read when printed: npm start's --http-port (or OFFLINE_HTTP_PORT) may move it.
const http = (): string => `http://${LOCAL_HOST}:${OFFLINE_PORTS.http}`;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

// Live reload counts a source saved from here on as a change, though it watches only once offline
// answers; the margin covers file systems whose timestamps lag the clock.
const sourcesRead = Date.now() - 50;

try {
  // Loaded here, not imported above, so an invalid application definition (a ConfigurationError
  // naming the service, option and problem) ends npm start with that message, not a stack trace.
  // The application module package.json's `webda.app` names: it exports `app`, `createApp` and `seed`.
  const project = readProject(projectDir);
  const appModule = join(projectDir, project.app);
  const { app, createApp, seed } = (await loadAppModule(projectDir, project)) as { app: Application; createApp: CreateApp; seed: SeedData };
  // serverless.yml includes schema-cache/: offline must not serve routes the models no longer have.
  const files = await renderCache(app, cacheRenderers);
  const changed = await writeCache(fileURLToPath(new URL("../schema-cache", import.meta.url)), files);
  if (changed.length > 0) {
    process.stdout.write(`warning: schema-cache/ was stale and has been regenerated (${changed.join(", ")}); commit it.\n`);
  }
  // What the banner offers and what starts beside offline follow the application: a GET route to
  // try when it has one, the development OpenID provider when it configures an Idp.
  const routes = (JSON.parse(files["routes.json"] ?? "[]") as { key: string }[]).map((route) => route.key);
  const withIdp = app.services().some(({ service }) => service instanceof IdpProvider);
  const code = await runLocal({
    projectDir,
    argv: process.argv.slice(2),
    tables: (prefix) => serviceTables(app, prefix),
    defaultTablePrefix: `${project.project}-local-`,
    // Edits under these folders are checked in a fresh process and served without a restart.
    liveReload: { appModule, watch: [project.app.split("/")[0] ?? "app", "lib", "functions"], files, sourcesRead },
    // An application's Idp signs in against a development OpenID provider on loopback (local stage only).
    companions: withIdp ? [devIdpCompanion(projectDir, (line) => process.stdout.write(`${line}\n`))] : [],
    seed: async ({ endpoint, tablePrefix }) => {
      // The seeder writes idents as offline's handlers will read them: keyed by the same local secret.
      process.env.APP_SECRET ||= localSecret("app-secret");
      const report = await runSeed({
        // A local tool, not a Lambda: the seed validates through the domain with schemas compiled here.
        createApp: () => createApp({ validation: runtimeValidation(), listing: domainListing }),
        data: seed,
        credentials: seedCredentials,
        endpoint,
        tablePrefix,
        onlyIfEmpty: true,
        client: { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS },
        log: print,
      });
      return report ? "seeded" : "kept";
    },
    banner: ({ database, seeded }) =>
      banner({
        project: project.project,
        urls: [
          ["API (REST, GraphQL)", routes.includes("GET /version") ? `${http()}  (try: curl ${http()}/version)` : http()],
          ["GraphQL", `${http()}/graphql`],
          ["GraphiQL", `${http()}/graphiql`],
          ["WebSocket", `ws://${LOCAL_HOST}:${OFFLINE_PORTS.websocket}  (graphql-transport-ws)`],
          ...(withIdp ? [["OpenID provider (local Idp)", `http://${LOCAL_HOST}:${devIdpPort()}  (sign in: ${http()}/auth/idp)`] as [string, string]] : []),
          ["DynamoDB Local", `${database.endpoint}  (tables ${database.tablePrefix}*)`],
        ],
        users: seed.users.map(({ email, password }) => ({ email, password })),
        outbox: ".data/outbox/",
        seeded,
      }),
  });
  process.exit(code);
} catch (error) {
  process.stderr.write(`npm start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
