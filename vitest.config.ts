import { generateKeyPairSync, randomBytes } from "node:crypto";
import { devNull } from "node:os";
import { defineConfig } from "vitest/config";

// One access-log line per in-process request would bury test output; warnings and errors stay.
process.env.LOG_LEVEL ??= "warn";
// Handlers write their metric lines to stdout in Lambda and to .data/ offline: in tests, to nowhere
// (one line per in-process request would bury test output; a test that reads them names its own).
process.env.METRICS_FILE ??= devNull;
// Tests run outside serverless offline, where nothing falls back to a built-in secret: they bring
// their own, as a deployed stage does (one per run).
process.env.APP_SECRET ??= randomBytes(48).toString("base64url");
process.env.AUTH_SIGNING_KEY ??= JSON.stringify(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }));

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "test/**/*.test.ts", "functions/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["test/setup/global.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // CI also keeps a machine-readable result, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".vitest-results.json" }]] : ["default"],
  },
});
