import { generateKeyPairSync, randomBytes } from "node:crypto";
import { devNull } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { LONG, LONG_SERVICE, OWN_SERVICE, SLOW_UNIT } from "./test/setup/file-lists.ts";
import { sampleTestsLeftOut } from "./test/setup/sample-tests.ts";
import ServiceSpreadingSequencer from "./test/setup/sequencer.ts";

// One access-log line per in-process request would bury test output; warnings and errors stay.
process.env.LOG_LEVEL ??= "warn";
// Handlers write their metric lines to stdout in Lambda and to .data/ offline: in tests, to nowhere
// (one line per in-process request would bury test output; a test that reads them names its own).
process.env.METRICS_FILE ??= devNull;
// Tests run outside serverless offline, where nothing falls back to a built-in secret: they bring
// their own, as a deployed stage does (one per run).
process.env.APP_SECRET ??= randomBytes(48).toString("base64url");
process.env.AUTH_SIGNING_KEY ??= JSON.stringify(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }));

// `npm test`, `npm run test:e2e` and `npm run test:long` set SERVICE_CHAIN=1: the files with a
// service of their own on the fixed ports run as one chain (test/e2e/own-service-chain.test.ts,
// long-service-chain.test.ts). Without it, each is a file of its own, as when one is run alone
// (`npx vitest run test/e2e/start.test.ts`).
const CHAINED = process.env.SERVICE_CHAIN === "1";
const SERVICE_CHAIN_FILE = "test/e2e/own-service-chain.test.ts";
const LONG_CHAIN_FILE = "test/e2e/long-service-chain.test.ts";
const SERVICE_FILES = CHAINED ? [SERVICE_CHAIN_FILE] : OWN_SERVICE;
const LONG_SERVICE_FILES = CHAINED ? [LONG_CHAIN_FILE] : LONG_SERVICE;
const UNIT = ["lib/**/*.test.ts", "test/**/*.test.ts", "functions/**/*.test.ts", "app/**/*.test.ts"];
const E2E = ["test/e2e/**/*.test.ts"];
// The sample blog's own tests go with it: left out of every project once app/ is another application
// (test/setup/sample-tests.ts); the framework's tests use their own fixture and stay.
const SAMPLE_LEFT_OUT = sampleTestsLeftOut(import.meta.dirname);
const UNIT_EXCLUDED = [...configDefaults.exclude, ...E2E, ...OWN_SERVICE, ...LONG, ...SAMPLE_LEFT_OUT, ...(process.env.TEST_FAST === "1" ? SLOW_UNIT : [])];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two files at a time on 2 cores (vitest's default is one fewer than the cores): much of an
    // end-to-end or service file is waiting on a service or a JVM, not running in the worker.
    maxWorkers: 2,
    // The service files spread among the unit files, one at a time (test/setup/sequencer.ts).
    sequence: { sequencer: ServiceSpreadingSequencer },
    // CI also keeps a machine-readable result, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ["default", ["json", { outputFile: process.env.VITEST_RESULTS ?? ".vitest-results.json" }]] : ["default"],
    projects: [
      {
        // No `npm start`: unit and integration tests over one DynamoDB Local (`npm run test:fast`
        // sets TEST_FAST=1: the same without the slow files). A worker's modules are shared by the
        // files it runs, one after another, in an order shuffled each run (test/setup/sequencer.ts
        // prints the seed; TEST_SEED replays it): importing the application, the AWS SDK and
        // graphql once per worker instead of once per file. A file may change the environment, a
        // spy or the working directory while it runs and must put it back: test/setup/scoped-state.ts
        // fails it, naming it, when it did not. What is per process lives on the application, the
        // invocation, the function invocationHandler built or the environment object a call is
        // given, so no module has to be reset between files; what is a process's own (a Lambda cold
        // start, a working folder) a file runs in a child process (test/support/tsx-child.ts).
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: UNIT_EXCLUDED,
          isolate: false,
          setupFiles: ["test/setup/scoped-state.ts"],
          globalSetup: ["test/setup/global.ts"],
          // After the e2e files (they share one service, stopped once they are done), beside the
          // service files (one at a time, spread among these by test/setup/sequencer.ts).
          sequence: { groupOrder: 1 },
        },
      },
      {
        // End to end over the one `npm start` its global setup starts (test/support/shared-offline.ts).
        extends: true,
        test: {
          name: "e2e",
          include: E2E,
          exclude: [...configDefaults.exclude, ...OWN_SERVICE, SERVICE_CHAIN_FILE, LONG_CHAIN_FILE, ...LONG, ...SAMPLE_LEFT_OUT],
          globalSetup: ["test/setup/shared-offline.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "service",
          include: SERVICE_FILES,
          exclude: [...configDefaults.exclude, ...SAMPLE_LEFT_OUT],
          globalSetup: ["test/setup/global.ts"],
          // With the unit files, after the shared service's (e2e) files: it stops once, not once per
          // file that needs the ports.
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "long",
          include: LONG.filter((file) => !LONG_SERVICE.includes(file)),
          exclude: [...configDefaults.exclude, ...SAMPLE_LEFT_OUT],
          globalSetup: ["test/setup/global.ts"],
          sequence: { groupOrder: 2 },
        },
      },
      {
        // The long files on the fixed ports, one at a time (one file under SERVICE_CHAIN=1), beside
        // the other long files: test/setup/sequencer.ts puts them first in their group.
        extends: true,
        test: {
          name: "long-service",
          include: LONG_SERVICE_FILES,
          exclude: [...configDefaults.exclude, ...SAMPLE_LEFT_OUT],
          globalSetup: ["test/setup/global.ts"],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
