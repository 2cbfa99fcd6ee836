import { generateKeyPairSync, randomBytes } from "node:crypto";
import { devNull } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

// One access-log line per in-process request would bury test output; warnings and errors stay.
process.env.LOG_LEVEL ??= "warn";
// Handlers write their metric lines to stdout in Lambda and to .data/ offline: in tests, to nowhere
// (one line per in-process request would bury test output; a test that reads them names its own).
process.env.METRICS_FILE ??= devNull;
// Tests run outside serverless offline, where nothing falls back to a built-in secret: they bring
// their own, as a deployed stage does (one per run).
process.env.APP_SECRET ??= randomBytes(48).toString("base64url");
process.env.AUTH_SIGNING_KEY ??= JSON.stringify(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }));

// Files that start a service of their own (other start arguments or environment, a project copy,
// a database they stall, files they edit) or take the offline lock to package: they run after
// the others, once the shared `npm start` has stepped aside (test/support/offline-turn.ts).
const OWN_SERVICE = [
  "test/e2e/add-model.test.ts",
  "test/e2e/auth-options.test.ts",
  "test/e2e/cross-origin.test.ts",
  "test/e2e/limits.test.ts",
  "test/e2e/migrate-walkthrough.test.ts",
  "test/e2e/stalled-database.test.ts",
  "test/e2e/start.test.ts",
  "test/e2e/tour.test.ts",
];
// Long by nature, `npm run test:long` (docs/tests.md), which CI runs after `npm test`: the fuzzer
// and the load test (thousands of requests), live reload (a save of each style, offline
// restarted twice), and building and packaging (every function's bundle under its budget, the
// packaged templates validated, callgrind counting a cold start, the 30-model application).
const LONG = [
  "test/reliability/fuzz.test.ts",
  "test/reliability/load.test.ts",
  "test/e2e/live-reload.test.ts",
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
// their own (JVMs, the CLI, a check process), measure by repetition, or migrate many rows.
const SLOW_UNIT = [
  "lib/local/dynamodb-local.test.ts",
  "lib/local/live-reload/rebuild.test.ts",
  "test/auth/enumeration.test.ts",
  "test/auth/v3/migrate.test.ts",
  "test/auth/v3/cli.test.ts",
  "test/auth/v3/crash.test.ts",
  "test/cli/webda.test.ts",
  "test/local/seed-command.test.ts",
  "test/query/equivalence.test.ts",
  "test/store/aws-budgets.test.ts",
  "test/store/dynamodb.test.ts",
];
const UNIT = ["lib/**/*.test.ts", "test/**/*.test.ts", "functions/**/*.test.ts", "app/**/*.test.ts"];
const E2E = ["test/e2e/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // CI also keeps a machine-readable result, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ["default", ["json", { outputFile: process.env.VITEST_RESULTS ?? ".vitest-results.json" }]] : ["default"],
    projects: [
      {
        // No `npm start`: unit and integration tests over one DynamoDB Local (`npm run test:fast`
        // sets TEST_FAST=1: the same without the slow files).
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: [...configDefaults.exclude, ...E2E, ...OWN_SERVICE, ...LONG, ...(process.env.TEST_FAST === "1" ? SLOW_UNIT : [])],
          globalSetup: ["test/setup/global.ts"],
        },
      },
      {
        // End to end over the one `npm start` its global setup starts (test/support/shared-offline.ts).
        extends: true,
        test: {
          name: "e2e",
          include: E2E,
          exclude: [...configDefaults.exclude, ...OWN_SERVICE, ...LONG],
          globalSetup: ["test/setup/shared-offline.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "service",
          include: OWN_SERVICE,
          globalSetup: ["test/setup/global.ts"],
          // After the shared service's files: it stops once, not once per file that needs the ports.
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "long",
          include: LONG,
          globalSetup: ["test/setup/global.ts"],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
