import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "test/**/*.test.ts", "functions/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["test/setup/global.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
