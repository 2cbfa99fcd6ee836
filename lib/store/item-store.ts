import { isDeepStrictEqual } from "node:util";
import { ConflictError, NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import type { TableShape } from "../core/model-info.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import type { Expression } from "../query/ast.ts";
import { evaluate } from "../query/evaluate.ts";
import { copyItem } from "./copy.ts";
import { assertPartitionField, compareValues, cursorOf, keyFieldsOf, keyString, pickKey } from "./keys.ts";
import { fillPages } from "./fill-pages.ts";
import {
  acceptedRows,
  PageFill,
  type Cursor,
  type Item,
  type Key,
  type KeyValue,
  type ListEachRequest,
  type ListRequest,
  type OrderTerm,
  type Page,
  type Repository,
  type WriteOptions,
} from "./repository.ts";

/**
 * A row without an envelope (written by another program: a v3 export, a hand-made JSON file) has
 * no `__version`: it reads as a record at version 0, and its first write gives it version 1.
 */
function versionOf(item: Item): number {
  const version = item[VERSION_FIELD];
  return typeof version === "number" ? version : 0;
}

/**
 * The part shared by stores that hold whole items by key (memory, file): conditional writes and
 * filtered, ordered, resumable listing. Subclasses only load, save and enumerate items.
 */
export abstract class ItemStore implements Repository {
  /** Serialises writes per key so that a read-check-write is atomic within this process. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly table: TableShape) {}

  protected abstract load(id: string): Promise<Item | undefined>;
  protected abstract save(id: string, item: Item): Promise<void>;
  protected abstract remove(id: string): Promise<void>;
  /**
   * Every stored item. A store may answer the same array until its contents change (memory does):
   * callers never modify it, and orders sorted from it are kept as long as it is answered.
   */
  protected abstract all(): Promise<readonly Item[]>;
  abstract clear(): Promise<void>;

  private id(key: Key): string {
    return keyString(this.table, key);
  }

  private async exclusive<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.catch(() => undefined);
    this.locks.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(id) === settled) this.locks.delete(id);
    }
  }

  private current(id: string, options: WriteOptions | undefined): Promise<Item> {
    return this.load(id).then((stored) => {
      if (!stored) throw new NotFoundError();
      if (options?.expectedVersion !== undefined && versionOf(stored) !== options.expectedVersion) {
        throw new PreconditionFailedError();
      }
      for (const [field, value] of Object.entries(options?.expectedFields ?? {})) {
        if (!isDeepStrictEqual(stored[field], value)) throw new PreconditionFailedError();
      }
      return stored;
    });
  }

  async get(key: Key): Promise<Item | undefined> {
    return this.load(this.id(key));
  }

  async getMany(keys: Key[]): Promise<Item[]> {
    const found = await Promise.all(keys.map((k) => this.get(k)));
    return found.filter((i): i is Item => i !== undefined);
  }

  async findByField(field: string, values: KeyValue[]): Promise<Item[]> {
    assertPartitionField(this.table, field);
    const wanted = new Set(values);
    return (await this.all()).filter((item) => wanted.has(item[field] as KeyValue)).map((item) => copyItem(item));
  }

  create(item: Item): Promise<Item> {
    const id = this.id(pickKey(this.table, item));
    return this.exclusive(id, async () => {
      if (await this.load(id)) throw new ConflictError("A record with this key already exists");
      const stored = { ...copyItem(item), [VERSION_FIELD]: 1 };
      await this.save(id, stored);
      return copyItem(stored);
    });
  }

  replace(key: Key, item: Item, options?: WriteOptions): Promise<Item> {
    const id = this.id(key);
    return this.exclusive(id, async () => {
      const stored = await this.current(id, options);
      const next = { ...copyItem(item), ...key, [VERSION_FIELD]: versionOf(stored) + 1 };
      await this.save(id, next);
      return copyItem(next);
    });
  }

  patch(key: Key, set: Item, remove: string[], options?: WriteOptions): Promise<Item> {
    const id = this.id(key);
    return this.exclusive(id, async () => {
      const stored = await this.current(id, options);
      const next: Item = { ...stored, ...copyItem(set), ...key, [VERSION_FIELD]: versionOf(stored) + 1 };
      for (const field of remove) delete next[field];
      await this.save(id, next);
      return copyItem(next);
    });
  }

  adjust(key: Key, field: string, by: number, max: number): Promise<number | undefined> {
    const id = this.id(key);
    return this.exclusive(id, async () => {
      const stored = await this.current(id, undefined);
      const current = typeof stored[field] === "number" ? stored[field] : 0;
      const next = current + by;
      if (next < 0 || next > max) return undefined;
      await this.save(id, { ...stored, [field]: next, [VERSION_FIELD]: versionOf(stored) + 1 });
      return next;
    });
  }

  delete(key: Key, options?: WriteOptions): Promise<Item> {
    const id = this.id(key);
    return this.exclusive(id, async () => {
      const stored = await this.current(id, options);
      await this.remove(id);
      return stored;
    });
  }

  async list(request: ListRequest): Promise<Page> {
    const { order, compare } = this.ordering(request.orderBy);
    const where = request.where as Expression | undefined;
    const rows = this.sorted(await this.all(), order, compare);
    const after = request.after;
    let start = 0;
    if (after) {
      const marker: Item = { ...after };
      // A cursor marked AT resumes at its record (an empty page's), any other after it. (compare
      // answers any sign, a number's difference included: never compare it with 1.)
      const atRecord = after[AT] === 1;
      const before = (row: Item): boolean => (atRecord ? compare(row, marker) < 0 : compare(row, marker) <= 0);
      while (start < rows.length && before(rows[start] as Item)) start++;
    }
    const page = new PageFill(request);
    const fields = order.map((t) => t.field);
    let next: Page["next"];
    // Records are evaluated in batches (permission asked once per batch, as the DynamoDB store does
    // per page it reads), at most `maxRead` of them, as DynamoDB's Limit counts them.
    const batch = Math.max(request.limit + 1, 100);
    const end = Math.min(rows.length, start + Math.max(1, request.maxRead ?? rows.length));
    let i = start;
    let scanned = 0;
    scan: for (; i < end; i += batch) {
      const read = rows.slice(i, Math.min(i + batch, end));
      scanned += read.length;
      for (const row of await acceptedRows(request, where ? read.filter((item) => evaluate(where, item)) : read)) {
        if (!page.add(row)) {
          next = resumeAt(page.items[page.items.length - 1], row, fields);
          // In memory nothing is read in bulk: the page examined the records up to this one.
          scanned = rows.indexOf(row, i) - start + 1;
          break scan;
        }
      }
    }
    // The budget ended before the records did: resume after the last one read.
    if (!next && end < rows.length) next = cursorOf(rows[end - 1] as Item, fields);
    const { items } = page;
    return next ? { items, next, scanned } : { items, scanned };
  }

  /** Each scope's records filtered and sorted as `list` sorts them, then paged together. */
  async listEach(request: ListEachRequest): Promise<Page[]> {
    const { field, scopes, ...common } = request;
    assertPartitionField(this.table, field);
    const { order, compare } = this.ordering(common.orderBy);
    const wanted = new Set(scopes.map((s) => s.value));
    const byValue = new Map<KeyValue, Item[]>();
    for (const item of await this.all()) {
      const value = item[field] as KeyValue;
      if (!wanted.has(value)) continue;
      const group = byValue.get(value);
      if (group) group.push(item);
      else byValue.set(value, [item]);
    }
    // A scope holding more records than the read budget is listed on its own, as the DynamoDB store
    // does: `list` stops at the budget and resumes right after the last record read.
    const maxRead = common.maxRead ?? Number.POSITIVE_INFINITY;
    const within = scopes.filter(({ value }) => (byValue.get(value)?.length ?? 0) <= maxRead);
    const groups = within.map(({ value, where }) => (byValue.get(value) ?? []).filter((item) => !where || evaluate(where as Expression, item)).sort(compare));
    const filled = await fillPages(groups, common);
    const pages = new Map<(typeof scopes)[number], Page>(
      within.map((scope, g) => {
        const { items, next } = filled[g] as { items: Item[]; next?: Item };
        const copies = items.map((item) => copyItem(item));
        const scanned = byValue.get(scope.value)?.length ?? 0;
        return [
          scope,
          next
            ? {
                items: copies,
                next: resumeAt(
                  items[items.length - 1],
                  next,
                  order.map((t) => t.field),
                ),
                scanned,
              }
            : { items: copies, scanned },
        ];
      }),
    );
    return Promise.all(scopes.map((scope) => pages.get(scope) ?? this.list({ ...common, ...(scope.where ? { where: scope.where } : {}) })));
  }

  private readonly orders = new WeakMap<readonly Item[], Map<string, readonly Item[]>>();

  /** `items` in `order`, sorted once for as long as the store answers the same `all()`. */
  private sorted(items: readonly Item[], order: OrderTerm[], compare: (a: Item, b: Item) => number): readonly Item[] {
    let byOrder = this.orders.get(items);
    if (!byOrder) this.orders.set(items, (byOrder = new Map()));
    const id = JSON.stringify(order);
    let rows = byOrder.get(id);
    if (!rows) byOrder.set(id, (rows = [...items].sort(compare)));
    return rows;
  }

  /** The requested order, then the key, so that every position (and so every cursor) is unique. */
  private ordering(orderBy: OrderTerm[] | undefined): { order: OrderTerm[]; compare: (a: Item, b: Item) => number } {
    const order = [...(orderBy ?? [])];
    for (const field of keyFieldsOf(this.table)) {
      if (!order.some((t) => t.field === field)) order.push({ field, direction: order[0]?.direction ?? "ASC" });
    }
    const compare = (a: Item, b: Item): number => {
      for (const term of order) {
        const c = compareValues(a[term.field], b[term.field]);
        if (c !== 0) return term.direction === "ASC" ? c : -c;
      }
      return 0;
    };
    return { order, compare };
  }
}

/** Cursor entry of a page that ended before its first record: resume at the record, not after it. */
const AT = "~at";

/** Resume after the page's last record, or at `next` when the page is empty. */
function resumeAt(last: Item | undefined, next: Item, fields: string[]): Cursor {
  return last ? cursorOf(last, fields) : { ...cursorOf(next, fields), [AT]: 1 };
}
