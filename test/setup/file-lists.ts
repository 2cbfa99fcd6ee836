/** The file lists vitest.config.ts builds its projects from (docs/tests.md, "Projects"). */

// Files that start a service of their own (other start arguments or environment, a project copy,
// a database they stall, files they edit): after the e2e files, once the shared `npm start` has
// stepped aside (test/support/offline-turn.ts), one at a time beside the unit files.
export const OWN_SERVICE = [
  "test/e2e/add-model.test.ts",
  "test/e2e/auth-options.test.ts",
  "test/e2e/cross-origin.test.ts",
  "test/e2e/day-two.test.ts",
  "test/e2e/limits.test.ts",
  "test/e2e/migrate-walkthrough.test.ts",
  "test/e2e/side-by-side.test.ts",
  "test/e2e/stalled-database.test.ts",
  "test/e2e/start.test.ts",
  "test/e2e/tour.test.ts",
];
// Long by nature, `npm run test:long` (docs/tests.md), which CI runs after `npm test`: the fuzzer
// and the load test (thousands of requests), live reload (a save of each style, offline
// restarted twice, then broken saves in the same start), a new project built and started, and
// building and packaging (every function's bundle under its budget, the packaged templates
// validated, callgrind counting a cold start, the 30-model application). Two at a time: the
// files of LONG_SERVICE one after another in one worker, the others beside them in the other.
export const LONG = [
  // 20,000 records written, migrated, killed and resumed under racing patches: on the DynamoDB
  // Local the unit files share, its load timed their requests out, so it runs here.
  "test/cli/db-migrate.test.ts",
  "test/reliability/fuzz.test.ts",
  "test/reliability/load.test.ts",
  "test/e2e/live-reload.test.ts",
  // Its own project, ports and database: it takes no turn on the fixed ports.
  "test/cli/new-project-start.test.ts",
  // A copy of the project with app/ replaced: its typecheck, lint and test lists.
  "test/cli/replaced-app.test.ts",
  "test/deploy/large-app.test.ts",
  "test/deploy/compile-cache.test.ts",
  // Each packages a copy of the project (test/support/project-copy.ts), not the project itself,
  // whose .esbuild/ a running `npm start` serves from.
  "test/deploy/operations-template.test.ts",
  "test/deploy/package.test.ts",
  "test/deploy/roles.test.ts",
  "test/bench/bundle-contents.test.ts",
  "test/bench/bundle-size.test.ts",
  "test/bench/bundle-stores.test.ts",
  "test/bench/callgrind.test.ts",
  "test/bench/yoga-fair.test.ts",
];
// The long files that start `npm start` on the fixed ports (the offline lock, test/support/offline.ts):
// `npm run test:long` runs them as one file (test/e2e/long-service-chain.test.ts, SERVICE_CHAIN=1),
// back to back in one worker, as `npm test` runs OWN_SERVICE. They share its process, so none may
// change process-wide state (test/setup/isolation.test.ts).
export const LONG_SERVICE = ["test/e2e/live-reload.test.ts", "test/reliability/fuzz.test.ts", "test/reliability/load.test.ts"];
// In `npm test`, not in `npm run test:fast` (the inner loop): unit files that start processes of
// their own (JVMs, the CLI, a check process, a browser), measure by repetition, write thousands of
// rows, or wait out real time (the SDK's retry backoff, a watcher's quiet windows).
export const SLOW_UNIT = [
  "lib/local/live-reload/watch.test.ts",
  "test/graphql/graphiql.test.ts",
  "test/reliability/faults.test.ts",
  "test/store/read-amplification.test.ts",
  "lib/local/dynamodb-local.test.ts",
  "lib/local/live-reload/rebuild.test.ts",
  "test/auth/enumeration.test.ts",
  "test/auth/v3/migrate.test.ts",
  "test/auth/v3/cli.test.ts",
  "test/auth/v3/crash.test.ts",
  "test/cli/webda.test.ts",
  // Hundreds of rows copied three times, and every step validated against the specification.
  "test/cli/table-plan.test.ts",
  "test/cli/new-project.test.ts",
  "test/local/seed-command.test.ts",
  "test/query/equivalence.test.ts",
  "test/store/aws-budgets.test.ts",
  "test/store/dynamodb.test.ts",
  "test/realtime/pack-buckets.test.ts",
];
/**
 * A change to process-wide state, as written in a test file: `npm test` runs the service files as
 * one file in one process (test/e2e/own-service-chain.test.ts), so test/setup/isolation.test.ts
 * finds none in them.
 */
export const CHANGES_PROCESS_STATE =
  /process\.env(\.[A-Za-z_0-9]+|\[[^\]]+\]) *(\?\?|\|\|)?=[^=]|delete process\.env|Object\.assign\(process\.env|vi\.(mock|stubEnv|stubGlobal|useFakeTimers|spyOn|doMock|resetModules)|setLog|setMetrics|globalThis\.[a-zA-Z]+ *=[^=]|process\.chdir|process\.exitCode/;
