import { defineConfig } from "vitest/config";

// Lambda runs Node 22; the SDK's notice about Node 20 support is noise in local test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// One access-log line per in-process request would bury test output; warnings and errors stay.
process.env.LOG_LEVEL ??= "warn";

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "test/**/*.test.ts", "functions/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["test/setup/global.ts"],
    setupFiles: ["test/setup/validators.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // CI also keeps a machine-readable result, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".vitest-results.json" }]] : ["default"],
  },
});
