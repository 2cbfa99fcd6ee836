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
// restarted twice, then broken saves in the same start), and building and packaging (every function's bundle under its budget, the
// packaged templates validated, callgrind counting a cold start, the 30-model application).
export const LONG = [
  // 20,000 records written, migrated, killed and resumed under racing patches: on the DynamoDB
  // Local the unit files share, its load timed their requests out, so it runs here, alone.
  "test/cli/db-migrate.test.ts",
  "test/reliability/fuzz.test.ts",
  "test/reliability/load.test.ts",
  "test/e2e/live-reload.test.ts",
  "test/cli/new-project-start.test.ts",
  // A copy of the project with app/ replaced: its typecheck, lint and test lists.
  "test/cli/replaced-app.test.ts",
  "test/deploy/large-app.test.ts",
  "test/deploy/compile-cache.test.ts",
  "test/deploy/operations-template.test.ts",
  "test/deploy/package.test.ts",
  "test/deploy/roles.test.ts",
  "test/bench/bundle-contents.test.ts",
  "test/bench/bundle-size.test.ts",
  "test/bench/bundle-stores.test.ts",
  "test/bench/callgrind.test.ts",
  "test/bench/yoga-fair.test.ts",
];
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

/**
 * Which unit files run in a process of their own. The others share their worker's modules with the
 * files before them (vitest's `isolate: false`), in a shuffled order: importing the application, the
 * AWS SDK and graphql once per worker instead of once per file is most of what the unit project's
 * run time was. Such a file may change the environment, a spy or the working directory while it
 * runs, and must put it back: test/setup/scoped-state.ts checks after each one and fails it,
 * naming it, when it left any of that changed. The application, the invocation, the function
 * invocationHandler built or the environment object a call is given carries the rest (the secrets
 * read, the DynamoDB client of a configuration and tracing switch, the log settings; a function's
 * metrics settings, cold start and tracer provider), so nothing of a module has to be reset
 * between files: a file that wants the metrics, log or tracing environment of a deployed stage
 * sets it in a hook (withEnvironment, test/support/offline-env.ts) and builds its handlers and
 * clients after it.
 *
 * Listed here: files whose subject is itself per process, each in a fresh one.
 */
export const ISOLATED = [
  // A Lambda cold start of every function module (functions/*.ts compose as they load, with the
  // tables and secret of the environment then): a module another file loaded first would answer
  // from that file's tables.
  "test/local/events.test.ts",
  // Runs in a service's folder (process.chdir), as Serverless does: esbuild's service process,
  // started by the first build of a worker, keeps the folder it started in, deleted after.
  "test/local/borrowed.test.ts",
];
