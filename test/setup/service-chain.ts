import { join } from "node:path";
import { describe, it } from "vitest";
import { sampleTestsLeftOut } from "./sample-tests.ts";

/**
 * Runs `files` as one test file, each imported into a `describe` of its own (its hooks collected
 * there, as in its own file, so each stops what it started before the next begins): one worker
 * runs them back to back while the other works through the rest of the group. As separate files,
 * whichever worker came to one next waited on the offline lock while the other held it. Every
 * chain (test/e2e/own-service-chain.test.ts, test/e2e/long-service-chain.test.ts) is one of these.
 * The sample's own files stay out once app/ is another application (test/setup/sample-tests.ts).
 */
export function chainFiles(files: readonly string[]): void {
  const leftOut = new Set(sampleTestsLeftOut(join(import.meta.dirname, "..", "..")));
  const chained = files.filter((f) => !leftOut.has(f));
  for (const file of chained) {
    describe(file, async () => {
      await import(/* @vite-ignore */ `../../${file}`);
    });
  }
  // A file without a test fails: say why there is nothing to run.
  if (chained.length === 0) it.skip("(every file of this chain is the sample's, and app/ is not the sample)", () => {});
}
