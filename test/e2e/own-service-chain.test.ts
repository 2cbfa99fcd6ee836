import { join } from "node:path";
import { describe, it } from "vitest";
import { OWN_SERVICE } from "../setup/file-lists.ts";
import { sampleTestsLeftOut } from "../setup/sample-tests.ts";

// `npm test` runs the files that start an `npm start` of their own from here (vitest.config.ts,
// SERVICE_CHAIN=1): one file, so one worker runs them back to back while the other works through
// the unit files. As separate files, whichever worker came to one next waited on the offline lock
// while the other held it, and the unit files spread between them to avoid that left the chain
// of starts with gaps. Each file's hooks are collected into its own describe, as they were in its
// own file, so each stops what it started before the next begins.
// The sample's own files stay out once app/ is another application (test/setup/sample-tests.ts).
const leftOut = new Set(sampleTestsLeftOut(join(import.meta.dirname, "..", "..")));
const chained = OWN_SERVICE.filter((f) => !leftOut.has(f));
for (const file of chained) {
  describe(file, async () => {
    await import(/* @vite-ignore */ `../../${file}`);
  });
}
// A file without a test fails: say why there is nothing to run.
if (chained.length === 0) it.skip("(every file with a service of its own is the sample's, and app/ is not the sample)", () => {});
