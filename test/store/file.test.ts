import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { FileRepository } from "../../lib/store/file.ts";
import { repositoryContract, SINGLE } from "./contract.ts";

const root = await mkdtemp(join(tmpdir(), "file-store-"));
afterAll(() => rm(root, { recursive: true, force: true }));

let n = 0;
repositoryContract("file", async (table) => new FileRepository(root, `m${n++}`, table));

it("leaves no temporary file behind and stores one JSON file per record", async () => {
  const repository = new FileRepository(root, "files", SINGLE);
  await Promise.all(Array.from({ length: 10 }, (_, i) => repository.create({ id: `x${i}`, group: "g", rank: i })));
  await repository.patch({ id: "x1" }, { rank: 100 }, []);
  const names = await readdir(join(root, "files"));
  expect(names).toHaveLength(10);
  expect(names.every((n) => n.endsWith(".json") && !n.startsWith("."))).toBe(true);
});
