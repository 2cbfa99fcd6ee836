import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The sample blog's own tests: they test the project's application (app/, package.json `webda.app`)
 * as the sample it is today, end to end under `npm start`, packaged, or through functions/ (which
 * compose whatever app/definition.ts builds). Every other test of the framework builds its
 * applications from its own fixture (test/fixtures/blog), which test/setup/sample-free.test.ts
 * checks, so replacing or removing app/ leaves them as they are.
 *
 * These go with the sample: while app/ is the sample (sampleIsTheApplication) they run as listed in
 * test/setup/file-lists.ts; once app/ is another application (`webda new`'s example, your own),
 * vitest.config.ts leaves them out of every project and test/e2e/own-service-chain.test.ts skips
 * them. An application's own tests (app/**\/*.test.ts) always run: they go with it.
 */
export const SAMPLE_TESTS = [
  // `npm start` serves the project's application: these drive the sample's routes, README walkthroughs and seed.
  "test/e2e/add-model.test.ts",
  "test/e2e/auth-options.test.ts",
  "test/e2e/auth.test.ts",
  "test/e2e/authorization.test.ts",
  "test/e2e/cross-origin.test.ts",
  "test/e2e/day-two.test.ts",
  "test/e2e/graphql.test.ts",
  "test/e2e/idp.test.ts",
  "test/e2e/limits.test.ts",
  "test/e2e/live-reload.test.ts",
  "test/e2e/migrate-walkthrough.test.ts",
  "test/e2e/openapi-conformance.test.ts",
  "test/e2e/rest.test.ts",
  "test/e2e/side-by-side.test.ts",
  "test/e2e/stalled-database.test.ts",
  "test/e2e/start.test.ts",
  "test/e2e/subscriptions.test.ts",
  "test/e2e/tour.test.ts",
  "test/reliability/fuzz.test.ts",
  "test/reliability/load.test.ts",
  // The sample's functions/ as Lambda runs them, its events/, its commands.
  "test/auth/v3/lambda.test.ts",
  // `webda auth migrate` as a process, on the project's application: the v3 idents it migrates name the sample's Idp.
  "test/auth/v3/cli.test.ts",
  "test/local/events.test.ts",
  "test/local/seed-command.test.ts",
  // The sample packaged by `serverless package` (its routes, tables, roles, test service).
  "test/deploy/large-app.test.ts",
  "test/deploy/operations-template.test.ts",
  "test/deploy/package.test.ts",
  "test/deploy/roles.test.ts",
];

/** A file the sample has and no other application is expected to: its Post model. */
export const SAMPLE_MARKER = "app/models/post.ts";

/** Whether the project's application is the sample blog: package.json names app/index.ts, and app/ holds the sample's Post model. */
export function sampleIsTheApplication(root: string): boolean {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { webda?: { app?: string } };
  return pkg.webda?.app === "app/index.ts" && existsSync(join(root, SAMPLE_MARKER));
}

/** What every vitest project leaves out: nothing while app/ is the sample, else the sample's tests. */
export function sampleTestsLeftOut(root: string): string[] {
  return sampleIsTheApplication(root) ? [] : SAMPLE_TESTS;
}
