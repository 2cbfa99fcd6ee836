import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith(suffix)).map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe("the plain-JS modules under lib/ (serverless plugins and their parts)", () => {
  it("each opts into tsc's checking: tsconfig includes JS without checking it unless the file asks", async () => {
    const files = await filesUnder(join(ROOT, "lib"), ".mjs");
    expect(files.length).toBeGreaterThan(0);
    const unchecked = [];
    for (const file of files) {
      const first = (await readFile(join(ROOT, file), "utf8")).split("\n", 1)[0];
      if (first !== "// @ts-check") unchecked.push(file);
    }
    expect(unchecked).toEqual([]);
  });
});
