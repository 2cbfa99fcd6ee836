import { beforeEach, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, PreconditionFailedError } from "../../lib/core/errors.ts";
import type { TableShape } from "../../lib/core/model-info.ts";
import { parseFilter } from "../../lib/query/index.ts";
import type { Expression } from "../../lib/query/index.ts";
import type { Cursor, Item, ListEachRequest, Repository } from "../../lib/store/repository.ts";

/** Tables every implementation is checked on: a single key, and a composite key with an index. */
export const SINGLE: TableShape = { key: { hash: "id" }, indexes: [{ name: "by_group", hash: "group", range: "rank" }] };
export const COMPOSITE: TableShape = { key: { hash: "owner", range: "name" }, indexes: [{ name: "by_name", hash: "name", range: "owner" }] };

/** Reads every page of a listing and joins them. */
export async function readAll(repository: Repository, request: Omit<Parameters<Repository["list"]>[0], "after">): Promise<Item[]> {
  const all: Item[] = [];
  let after: Record<string, string | number> | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await repository.list({ ...request, ...(after ? { after } : {}) });
    all.push(...page.items);
    if (!page.next) return all;
    expect(page.items.length).toBe(request.limit);
    after = page.next;
  }
  throw new Error("pagination did not end");
}

/** Every page from `after` on. */
async function rest(repository: Repository, request: Omit<Parameters<Repository["list"]>[0], "after">, after: Cursor): Promise<Item[]> {
  const all: Item[] = [];
  let next: Cursor | undefined = after;
  for (let pages = 0; next && pages < 1000; pages++) {
    const page = await repository.list({ ...request, after: next });
    all.push(...page.items);
    next = page.next;
  }
  return all;
}

/** `field = value AND <filter>`, as a contains relation scopes a child query. */
function scoped(field: string, value: string, filter = ""): Expression {
  return parseFilter(filter ? `${field} = '${value}' AND (${filter})` : `${field} = '${value}'`) as Expression;
}

/**
 * listEach answers, for every scope, what `list` answers for it alone: the same records in the same
 * order, a `next` exactly when list has one, and resuming from its `next` reads what resuming from
 * list's reads.
 */
async function expectSameAsList(repository: Repository, request: ListEachRequest<Expression>): Promise<void> {
  const { field: _field, scopes, ...common } = request;
  const pages = await (repository.listEach as NonNullable<Repository["listEach"]>).call(repository, request);
  expect(pages).toHaveLength(scopes.length);
  for (const [i, { value, where }] of scopes.entries()) {
    const page = pages[i] as { items: Item[]; next?: Cursor };
    const alone = await repository.list({ ...common, where });
    expect(page.items, `scope ${value}`).toEqual(alone.items);
    expect(page.next !== undefined, `scope ${value} has a next page`).toBe(alone.next !== undefined);
    if (page.next && alone.next) {
      const resumed = await rest(repository, { ...common, where }, page.next);
      expect(resumed, `scope ${value} resumed`).toEqual(await rest(repository, { ...common, where }, alone.next));
      expect(resumed.length).toBeGreaterThan(0);
    }
  }
}

/**
 * The one contract of every store. Each implementation runs this suite, so they cannot drift.
 */
/** `pages`: the store implements the optional `findByFieldPages` (DynamoDB does; memory and file do not). */
export function repositoryContract(name: string, make: (table: TableShape) => Promise<Repository>, options: { pages?: boolean } = {}): void {
  describe(`${name} repository contract`, () => {
    let single: Repository;
    let composite: Repository;

    beforeEach(async () => {
      single = await make(SINGLE);
      composite = await make(COMPOSITE);
      await single.clear();
      await composite.clear();
    });

    it("creates with version 1 and refuses to overwrite an existing key", async () => {
      const created = await single.create({ id: "a", group: "g", rank: 1, nested: { x: [1, 2] } });
      expect(created.__version).toBe(1);
      await expect(single.create({ id: "a", group: "other", rank: 2 })).rejects.toBeInstanceOf(ConflictError);
      expect(await single.get({ id: "a" })).toEqual({ id: "a", group: "g", rank: 1, nested: { x: [1, 2] }, __version: 1 });
    });

    it("returns undefined for a missing key and keeps composite keys apart", async () => {
      expect(await single.get({ id: "nope" })).toBeUndefined();
      await composite.create({ owner: "u1", name: "n1", v: 1 });
      await composite.create({ owner: "u1", name: "n2", v: 2 });
      await composite.create({ owner: "u2", name: "n1", v: 3 });
      expect((await composite.get({ owner: "u2", name: "n1" }))?.v).toBe(3);
      const many = await composite.getMany([
        { owner: "u1", name: "n2" },
        { owner: "u9", name: "n9" },
        { owner: "u1", name: "n1" },
      ]);
      expect(many.map((i) => i.v).sort()).toEqual([1, 2]);
    });

    it("finds items by the partition key of the table or of an index, many values at once", async () => {
      await Promise.all(Array.from({ length: 70 }, (_, i) => single.create({ id: `k${i}`, group: `g${i % 7}`, rank: i })));
      const byKey = await single.findByField("id", [...Array.from({ length: 60 }, (_, i) => `k${i}`), "absent", "k0"]);
      expect(byKey.map((i) => i.id).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `k${i}`).sort());
      const byIndex = await single.findByField("group", ["g1", "g3", "none"]);
      expect(byIndex.map((i) => i.rank).sort((a, b) => Number(a) - Number(b))).toEqual([
        1, 3, 8, 10, 15, 17, 22, 24, 29, 31, 36, 38, 43, 45, 50, 52, 57, 59, 64, 66,
      ]);
      await Promise.all(["x", "y"].map((n) => composite.create({ owner: "o1", name: n })));
      await composite.create({ owner: "o2", name: "x" });
      expect((await composite.findByField("owner", ["o1"])).map((i) => i.name).sort()).toEqual(["x", "y"]);
      expect((await composite.findByField("name", ["x"])).map((i) => i.owner).sort()).toEqual(["o1", "o2"]);
      expect(await single.findByField("id", [])).toEqual([]);
      await expect(single.findByField("rank", [1])).rejects.toThrow(/partition key/);
    });

    // Only where the store has it: the fan-out falls back to findByField, which every store passes above.
    if (options.pages)
      it("finds the same items page by page where the store reads in pages, each at most twice the one before and the largest", async () => {
        if (!single.findByFieldPages) throw new Error(`${name} was declared to read in pages but has no findByFieldPages`);
        await Promise.all(Array.from({ length: 70 }, (_, i) => single.create({ id: `k${i}`, group: `g${i % 2}`, rank: i })));
        const sizes: number[] = [];
        const ranks: number[] = [];
        for await (const page of single.findByFieldPages("group", ["g0", "g1", "none"], { first: 4, largest: 10 })) {
          sizes.push(page.length);
          ranks.push(...page.map((i) => Number(i.rank)));
        }
        expect(ranks.sort((a, b) => a - b)).toEqual(Array.from({ length: 70 }, (_, i) => i));
        expect(sizes[0]).toBeLessThanOrEqual(4);
        sizes.slice(1).forEach((size, i) => expect(size).toBeLessThanOrEqual(Math.min(10, 4 * 2 ** (i + 1))));
        expect(sizes).toContain(10);
        expect(sizes.length).toBeGreaterThan(1);
      });

    it("replaces a whole item, bumping the version, and checks the expected version", async () => {
      await single.create({ id: "a", group: "g", rank: 1, drop: true });
      const replaced = await single.replace({ id: "a" }, { id: "a", group: "h", rank: 2 }, { expectedVersion: 1 });
      expect(replaced).toEqual({ id: "a", group: "h", rank: 2, __version: 2 });
      expect(await single.get({ id: "a" })).toEqual(replaced);
      await expect(single.replace({ id: "a" }, { id: "a", group: "x", rank: 3 }, { expectedVersion: 1 })).rejects.toBeInstanceOf(PreconditionFailedError);
      await expect(single.replace({ id: "zz" }, { id: "zz", group: "x", rank: 3 })).rejects.toBeInstanceOf(NotFoundError);
      expect((await single.get({ id: "a" }))?.group).toBe("h");
    });

    it("patches only the given attributes and removes the listed ones", async () => {
      await single.create({ id: "a", group: "g", rank: 1, keep: "k", gone: "x" });
      const patched = await single.patch({ id: "a" }, { rank: 5, added: { deep: true } }, ["gone"]);
      expect(patched).toEqual({ id: "a", group: "g", rank: 5, keep: "k", added: { deep: true }, __version: 2 });
      await expect(single.patch({ id: "a" }, { rank: 6 }, [], { expectedVersion: 1 })).rejects.toBeInstanceOf(PreconditionFailedError);
      await expect(single.patch({ id: "missing" }, { rank: 6 }, [])).rejects.toBeInstanceOf(NotFoundError);
      expect(await single.get({ id: "missing" })).toBeUndefined();
    });

    it("keeps every one of 50 concurrent patches of distinct attributes", async () => {
      await single.create({ id: "hot", group: "g", rank: 0 });
      await Promise.all(Array.from({ length: 50 }, (_, i) => single.patch({ id: "hot" }, { [`f${i}`]: i }, [])));
      const item = await single.get({ id: "hot" });
      for (let i = 0; i < 50; i++) expect(item?.[`f${i}`]).toBe(i);
      expect(item?.__version).toBe(51);
    });

    it("adjusts a counter atomically within its bounds: of 40 concurrent rises toward 25, exactly 25 pass", async () => {
      if (!single.adjust) throw new Error(`${name} keeps no counters`);
      await single.create({ id: "c", group: "g", rank: 0 });
      const rises = await Promise.all(Array.from({ length: 40 }, () => single.adjust?.({ id: "c" }, "held", 1, 25)));
      expect(rises.filter((v) => v !== undefined).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(await single.adjust({ id: "c" }, "held", 1, 25)).toBeUndefined();
      expect(await single.adjust({ id: "c" }, "held", -1, 25)).toBe(24);
      expect((await single.get({ id: "c" }))?.held).toBe(24);
      // Never below zero, whatever the maximum; a missing item is NotFound.
      expect(await single.adjust({ id: "c" }, "fresh", -1, Number.MAX_SAFE_INTEGER)).toBeUndefined();
      expect(await single.adjust({ id: "c" }, "fresh", 1, 1)).toBe(1);
      await expect(single.adjust({ id: "missing" }, "held", 1, 5)).rejects.toBeInstanceOf(NotFoundError);
      expect(await single.get({ id: "missing" })).toBeUndefined();
      expect((await single.get({ id: "c" }))?.group).toBe("g");
    });

    it("deletes, returning the old item, with an optional version guard", async () => {
      await single.create({ id: "a", group: "g", rank: 1 });
      await expect(single.delete({ id: "a" }, { expectedVersion: 7 })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect((await single.delete({ id: "a" }, { expectedVersion: 1 })).group).toBe("g");
      await expect(single.delete({ id: "a" })).rejects.toBeInstanceOf(NotFoundError);
    });

    it("lists every item exactly once across pages, at any page size", async () => {
      await Promise.all(Array.from({ length: 23 }, (_, i) => single.create({ id: `i${String(i).padStart(2, "0")}`, group: i % 2 ? "odd" : "even", rank: i })));
      for (const limit of [1, 4, 23, 50]) {
        const all = await readAll(single, { limit });
        expect(all.map((i) => i.id).sort()).toEqual(Array.from({ length: 23 }, (_, i) => `i${String(i).padStart(2, "0")}`));
      }
    });

    it("never returns a short page while matches remain, with a filter and a permission check", async () => {
      await Promise.all(Array.from({ length: 60 }, (_, i) => single.create({ id: `r${i}`, group: "g", rank: i, secret: i % 3 === 0 })));
      const where = parseFilter("rank >= 10");
      const accept = async (items: Item[]) => items.map((item) => item.secret !== true);
      const all = await readAll(single, { where, limit: 7, accept });
      const expected = Array.from({ length: 60 }, (_, i) => i).filter((i) => i >= 10 && i % 3 !== 0);
      expect(all.map((i) => i.rank).sort((a, b) => Number(a) - Number(b))).toEqual(expected);
    });

    it("ends a page at the byte budget, never short of it, and resumes exactly at the record left out", async () => {
      const sizes = [300, 50, 700, 120, 900, 20, 20, 450, 610, 80, 1000, 5, 333, 260];
      await Promise.all(sizes.map((size, i) => single.create({ id: `b${String(i).padStart(2, "0")}`, group: "g", rank: i, body: "x".repeat(size) })));
      const sizeOf = (item: Item) => String(item.body).length;
      const maxBytes = 1000;
      const seen: Item[] = [];
      let after: Record<string, string | number> | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await single.list({ limit: 50, maxBytes, sizeOf, ...(after ? { after } : {}) });
        const bytes = page.items.reduce((sum, item) => sum + sizeOf(item), 0);
        expect(page.items.length).toBeGreaterThan(0);
        if (page.items.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
        seen.push(...page.items);
        if (!page.next) break;
        const following = (await single.list({ limit: 1, after: page.next })).items[0] as Item;
        // Not short: the next record would not have fitted.
        expect(bytes + sizeOf(following)).toBeGreaterThan(maxBytes);
        after = page.next;
      }
      expect(seen.map((i) => i.id).sort()).toEqual(sizes.map((_, i) => `b${String(i).padStart(2, "0")}`));
    });

    it("stops at the read budget: a short (even empty) page whose next resumes exactly there", async () => {
      await Promise.all(
        Array.from({ length: 45 }, (_, i) =>
          single.create({ id: `m${String(i).padStart(2, "0")}`, group: i % 2 ? "odd" : "even", rank: i, secret: i % 5 === 0 }),
        ),
      );
      // Nothing matches: each request reads at most 10 records, so the table takes 5 requests.
      const none = parseFilter("rank > 1000");
      let after: Cursor | undefined;
      let requests = 0;
      do {
        const page = await single.list({ where: none, limit: 5, maxRead: 10, ...(after ? { after } : {}) });
        expect(page.items).toEqual([]);
        after = page.next;
        requests++;
      } while (after && requests < 100);
      expect(requests).toBeGreaterThanOrEqual(5);
      expect(requests).toBeLessThanOrEqual(6);
      // A filter and a permission check, on a Scan and on an index Query in both orders: following
      // the cursors yields every match once, in order where an order was asked.
      const accept = async (items: Item[]) => items.map((item) => item.secret !== true);
      const cases: { where: Expression | undefined; orderBy?: { field: string; direction: "ASC" | "DESC" }[]; expected: number[] }[] = [
        { where: parseFilter("rank >= 10 AND rank < 40"), expected: Array.from({ length: 30 }, (_, i) => i + 10) },
        {
          where: parseFilter("group = 'odd' AND rank > 20"),
          orderBy: [{ field: "rank", direction: "ASC" }],
          expected: Array.from({ length: 12 }, (_, i) => 21 + 2 * i),
        },
        { where: parseFilter("group = 'even' AND id LIKE '%4'"), orderBy: [{ field: "rank", direction: "DESC" }], expected: [44, 34, 24, 14, 4] },
      ];
      for (const { where, orderBy, expected } of cases) {
        for (const [limit, maxRead] of [
          [3, 8],
          [5, 1],
          [50, 7],
        ] as const) {
          const seen: Item[] = [];
          let cursor: Cursor | undefined;
          for (let pages = 0; pages < 200; pages++) {
            const page = await single.list({ where, ...(orderBy ? { orderBy } : {}), limit, maxRead, accept, ...(cursor ? { after: cursor } : {}) });
            expect(page.items.length).toBeLessThanOrEqual(limit);
            seen.push(...page.items);
            cursor = page.next;
            if (!cursor) break;
          }
          expect(cursor).toBeUndefined();
          const ranks = seen.map((item) => Number(item.rank));
          const wanted = expected.filter((rank) => rank % 5 !== 0);
          expect(orderBy ? ranks : [...ranks].sort((a, b) => a - b), `${JSON.stringify(where)} limit ${limit} maxRead ${maxRead}`).toEqual(
            orderBy ? wanted : [...wanted].sort((a, b) => a - b),
          );
        }
      }
    });

    it("shares one response's byte budget across pages: a page it cannot start is empty and resumes at its first record", async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => single.create({ id: `s${i}`, group: i < 5 ? "a" : "b", rank: i, body: "x".repeat(100) })));
      const sizeOf = (item: Item) => String(item.body).length;
      const everything = (await single.list({ limit: 50 })).items.map((item) => item.id);
      const shared = { remaining: 450, spent: 0 };
      const first = await single.list({ limit: 50, sizeOf, responseBytes: shared });
      expect(first.items.map((item) => item.id)).toEqual(everything.slice(0, 4));
      expect(shared).toEqual({ remaining: 50, spent: 400 });
      const second = await single.list({ limit: 50, sizeOf, responseBytes: shared });
      expect(second.items).toEqual([]);
      expect(second.next).toBeDefined();
      // In a later response (a budget of its own), each cursor resumes exactly where its page ended.
      expect((await rest(single, { limit: 50 }, second.next as Cursor)).map((item) => item.id)).toEqual(everything);
      expect((await rest(single, { limit: 50 }, first.next as Cursor)).map((item) => item.id)).toEqual(everything.slice(4));
      // A response's first record is never refused, however large: the response always progresses.
      const tiny = { remaining: 10, spent: 0 };
      expect((await single.list({ limit: 50, sizeOf, responseBytes: tiny })).items).toHaveLength(1);
      // Many scopes at once draw from the same budget, in scope order.
      if (!single.listEach) return;
      const byRank = [{ field: "rank", direction: "ASC" as const }];
      const together = { remaining: 350, spent: 0 };
      const pages = await single.listEach({
        field: "group",
        scopes: ["a", "b"].map((v) => ({ value: v, where: scoped("group", v) })),
        orderBy: byRank,
        limit: 50,
        sizeOf,
        responseBytes: together,
      });
      const [a, b] = pages as [{ items: Item[]; next?: Cursor }, { items: Item[]; next?: Cursor }];
      expect(a.items.length + b.items.length).toBe(3);
      const rests = [a, b].map((page, i) =>
        page.next ? rest(single, { where: scoped("group", i === 0 ? "a" : "b"), orderBy: byRank, limit: 50 }, page.next) : Promise.resolve([]),
      );
      const [restA, restB] = await Promise.all(rests);
      expect([...a.items, ...(restA ?? [])].map((item) => item.rank)).toEqual([0, 1, 2, 3, 4]);
      expect([...b.items, ...(restB ?? [])].map((item) => item.rank)).toEqual([5, 6, 7, 8, 9]);
    });

    it("lists what every write before it left, in order, however often the same listing was read before", async () => {
      const byRank = { where: parseFilter("group = 'a'"), orderBy: [{ field: "rank", direction: "ASC" as const }], limit: 10 };
      const ids = async (request: Omit<Parameters<Repository["list"]>[0], "after">) => (await single.list(request)).items.map((i) => i.id);
      await single.create({ id: "x", group: "a", rank: 2 });
      await single.create({ id: "y", group: "a", rank: 1 });
      expect(await ids(byRank)).toEqual(["y", "x"]);
      expect((await ids({ limit: 10 })).sort()).toEqual(["x", "y"]);
      await single.create({ id: "w", group: "a", rank: 3 });
      expect(await ids(byRank)).toEqual(["y", "x", "w"]);
      await single.patch({ id: "w" }, { rank: 0 }, []);
      expect(await ids(byRank)).toEqual(["w", "y", "x"]);
      await single.replace({ id: "y" }, { id: "y", group: "b", rank: 1 });
      expect(await ids(byRank)).toEqual(["w", "x"]);
      await single.delete({ id: "x" });
      expect(await ids(byRank)).toEqual(["w"]);
      expect((await ids({ limit: 10 })).sort()).toEqual(["w", "y"]);
    });

    it("serves an index order and resumes exactly after the last item", async () => {
      await Promise.all(Array.from({ length: 12 }, (_, i) => single.create({ id: `o${i}`, group: i < 8 ? "a" : "b", rank: (i * 7) % 12 })));
      const where = parseFilter("group = 'a'");
      const asc = await readAll(single, { where, orderBy: [{ field: "rank", direction: "ASC" }], limit: 3 });
      const ranksA = Array.from({ length: 8 }, (_, i) => (i * 7) % 12).sort((x, y) => x - y);
      expect(asc.map((i) => i.rank)).toEqual(ranksA);
      const desc = await readAll(single, { where, orderBy: [{ field: "rank", direction: "DESC" }], limit: 5 });
      expect(desc.map((i) => i.rank)).toEqual([...ranksA].reverse());
    });

    it("lists many scopes at once exactly as it lists each alone: order, limit, filter, permission, resumption", async () => {
      // Groups of 0 to 13 records; rank repeats within a group (equal sort keys), some records hidden.
      const sizes = [13, 0, 1, 3, 4, 7, 2];
      await Promise.all(
        sizes.flatMap((size, g) =>
          Array.from({ length: size }, (_, i) =>
            single.create({ id: `e${g}-${String(i).padStart(2, "0")}`, group: `g${g}`, rank: (i * 5) % 7, hidden: i % 4 === 3, body: "x".repeat(10 * i) }),
          ),
        ),
      );
      const accept = async (items: Item[]) => items.map((item) => item.hidden !== true);
      const values = [...sizes.map((_, g) => `g${g}`), "absent"];
      for (const orderBy of [undefined, [{ field: "rank", direction: "ASC" as const }], [{ field: "rank", direction: "DESC" as const }]]) {
        for (const limit of [1, 3, 50]) {
          await expectSameAsList(single, {
            field: "group",
            scopes: values.map((v) => ({ value: v, where: scoped("group", v) })),
            limit,
            accept,
            ...(orderBy ? { orderBy } : {}),
          });
        }
        await expectSameAsList(single, {
          field: "group",
          scopes: values.map((v) => ({ value: v, where: scoped("group", v, "rank >= 2") })),
          limit: 2,
          ...(orderBy ? { orderBy } : {}),
        });
      }
      // The byte budget ends each scope's page as it ends a page of list.
      await expectSameAsList(single, {
        field: "group",
        scopes: values.map((v) => ({ value: v, where: scoped("group", v) })),
        limit: 50,
        maxBytes: 100,
        sizeOf: (item) => String(item.body).length,
      });
    });

    it("asks the permission check about all scopes together, not once per scope", async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => single.create({ id: `a${i}`, group: `p${i % 10}`, rank: i })));
      let asked = 0;
      const accept = async (items: Item[]) => {
        asked++;
        return items.map(() => true);
      };
      const values = Array.from({ length: 10 }, (_, i) => `p${i}`);
      const pages = await (single.listEach as NonNullable<Repository["listEach"]>).call(single, {
        field: "group",
        scopes: values.map((v) => ({ value: v, where: scoped("group", v) })),
        limit: 5,
        accept,
      });
      expect(pages.map((p) => p.items.length)).toEqual(values.map(() => 2));
      expect(asked).toBe(1);
    });

    it("lists many scopes of a composite-key table by its partition key, and refuses an attribute no key partitions", async () => {
      await Promise.all(["c", "a", "b", "d"].flatMap((n) => [composite.create({ owner: "me", name: n }), composite.create({ owner: "you", name: n })]));
      await expectSameAsList(composite, {
        field: "owner",
        scopes: ["me", "you", "nobody"].map((v) => ({ value: v, where: scoped("owner", v, "name != 'b'") })),
        limit: 2,
      });
      await expectSameAsList(composite, { field: "name", scopes: ["a", "d"].map((v) => ({ value: v, where: scoped("name", v) })), limit: 1 });
      await expect((single.listEach as NonNullable<Repository["listEach"]>).call(single, { field: "rank", scopes: [], limit: 1 })).rejects.toThrow(
        /partition key/,
      );
    });

    it("lists a composite-key table by its sort key within one partition", async () => {
      await Promise.all(["c", "a", "b"].map((n) => composite.create({ owner: "me", name: n })));
      await composite.create({ owner: "you", name: "a" });
      const mine = await readAll(composite, { where: parseFilter("owner = 'me'"), orderBy: [{ field: "name", direction: "ASC" }], limit: 2 });
      expect(mine.map((i) => i.name)).toEqual(["a", "b", "c"]);
      const byName = await readAll(composite, { where: parseFilter("name = 'a'"), limit: 1 });
      expect(byName.map((i) => i.owner).sort()).toEqual(["me", "you"]);
    });
  });
}
