// `npm run seed`: the sample data, on demand, into the running `npm start` (see README).
import { fileURLToPath } from "node:url";
import { loadAppModule, loadCreateApp, readProject } from "../lib/cli/project.ts";
import { UnavailableError } from "../lib/core/errors.ts";
import { localSecret } from "../lib/core/local-secret.ts";
import { domainListing } from "../lib/core/list.ts";
import { runtimeValidation } from "../lib/core/validation-compiler.ts";
import { runSeed } from "../lib/local/seed-run.ts";
import { seedCredentials } from "../lib/local/seed-credentials.ts";
import type { SeedData } from "../lib/local/seed-data.ts";
import { clientConfig, SEED_USAGE, SeedRefused, seedTarget } from "../lib/local/seed-target.ts";

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

const root = fileURLToPath(new URL("..", import.meta.url));

try {
  // The application module package.json's `webda.app` names: it exports `createApp` and `seed`.
  const project = readProject(root);
  const createApp = await loadCreateApp(root, project);
  const { seed } = (await loadAppModule(root, project)) as { seed: SeedData };
  const target = seedTarget(process.argv.slice(2), createApp().name);
  if (target === "help") {
    print(SEED_USAGE);
    process.exit(0);
  }
  // Locally, idents are keyed as offline's handlers key them: with the secret offline generated.
  if (target.local) process.env.APP_SECRET ||= localSecret("app-secret");
  else print(`warning: seeding the deployed stage '${target.stage}' (forced): demo users with public passwords`);
  await runSeed({
    // A local tool, not a Lambda: the seed validates through the domain with schemas compiled here.
    createApp: () => createApp({ validation: runtimeValidation(), listing: domainListing }),
    data: seed,
    credentials: seedCredentials,
    endpoint: target.endpoint,
    tablePrefix: target.tablePrefix,
    client: clientConfig(target),
    log: print,
  });
} catch (error) {
  if (error instanceof SeedRefused || (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    process.stderr.write(`npm run seed: ${(error as Error).message}\n\n${SEED_USAGE}\n`);
    process.exit(2);
  }
  // Nothing listening surfaces as the store's 503 (its retries ran out), not as ECONNREFUSED.
  const unreachable =
    error instanceof UnavailableError ||
    (error as { name?: string }).name === "ResourceNotFoundException" ||
    /ECONNREFUSED/.test(String((error as { cause?: unknown }).cause ?? error));
  const hint = unreachable ? "\n  no database answered: start `npm start` first, in another terminal (or DYNAMODB_ENDPOINT names another DynamoDB)" : "";
  const message = unreachable ? "the database did not answer" : error instanceof Error ? error.message : String(error);
  process.stderr.write(`npm run seed: ${message}${hint}\n`);
  process.exit(1);
}
