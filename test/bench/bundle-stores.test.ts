import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundle } from "../../bench/build/bundle.ts";
import { functionEntries } from "../../bench/build/serverless-config.ts";

const out = await mkdtemp(join(tmpdir(), "bundle-stores-"));
afterAll(() => rm(out, { recursive: true, force: true }));

// The memory and file stores run applications in-process (lib/store/local-stores.ts); a function
// stores in DynamoDB only, so no function's bundle parses them at its cold start.
const IN_PROCESS = ["lib/store/local-stores.ts", "lib/store/memory.ts", "lib/store/file.ts", "lib/store/item-store.ts", "lib/store/copy.ts"];

describe("the stores a function's bundle carries", () => {
  it.each([...functionEntries().keys()])(
    "%s carries no in-process store",
    async (entry) => {
      const built = await bundle(entry, out);
      const project = built.inputs.filter((i) => i.bytes > 0 && !i.path.includes("node_modules/")).map((i) => i.path);
      expect(project.filter((path) => IN_PROCESS.includes(path))).toEqual([]);
      // Every function but GraphiQL's (it reads no data) has DynamoDB's.
      expect(project.includes("lib/store/dynamodb-records.ts")).toBe(entry !== "functions/graphiql.ts");
    },
    120_000,
  );
});
