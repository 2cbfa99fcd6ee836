import { describe } from "vitest";
import { OWN_SERVICE } from "../setup/file-lists.ts";

// `npm test` runs the files that start an `npm start` of their own from here (vitest.config.ts,
// SERVICE_CHAIN=1): one file, so one worker runs them back to back while the other works through
// the unit files. As separate files, whichever worker came to one next waited on the offline lock
// while the other held it, and the unit files spread between them to avoid that left the chain
// of starts with gaps. Each file's hooks are collected into its own describe, as they were in its
// own file, so each stops what it started before the next begins.
for (const file of OWN_SERVICE) {
  describe(file, async () => {
    await import(/* @vite-ignore */ `../../${file}`);
  });
}
