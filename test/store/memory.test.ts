import { describe, expect, it } from "vitest";
import { MemoryRepository } from "../../lib/store/memory.ts";
import { repositoryContract, SINGLE } from "./contract.ts";

repositoryContract("memory", async (table) => new MemoryRepository(table));

describe("memory repository isolation", () => {
  it("shares no state with its callers: what they pass in or get back can be changed freely", async () => {
    const store = new MemoryRepository(SINGLE);
    const input = { id: "a", group: "g", rank: 1, nested: { list: [1, 2] } };
    const created = await store.create(input);
    input.nested.list.push(3);
    (created.nested as { list: number[] }).list.push(4);
    const read = (await store.get({ id: "a" })) as { nested: { list: number[] } };
    expect(read.nested.list).toEqual([1, 2]);
    read.nested.list.push(5);
    const [found] = (await store.findByField("group", ["g"])) as { nested: { list: number[] } }[];
    expect(found?.nested.list).toEqual([1, 2]);
    (found as { nested: { list: number[] } }).nested.list.push(6);
    const [page] = await (store.listEach as NonNullable<typeof store.listEach>)({ field: "group", scopes: [{ value: "g", where: undefined }], limit: 10 });
    expect((page?.items[0] as { nested: { list: number[] } }).nested.list).toEqual([1, 2]);
    const patched = await store.patch({ id: "a" }, { nested: { list: [7] } }, []);
    (patched.nested as { list: number[] }).list.push(8);
    expect(((await store.get({ id: "a" })) as { nested: { list: number[] } }).nested.list).toEqual([7]);
  });
});
