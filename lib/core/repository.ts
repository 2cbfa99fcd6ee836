import type { TableShape } from "./model-info.ts";

export type KeyValue = string | number;
export type Key = Record<string, KeyValue>;
export type Item = Record<string, unknown>;

/** Where to resume a read: the key attributes (table and index) of the last record returned. */
export type Cursor = Record<string, KeyValue>;

export interface OrderTerm {
  field: string;
  direction: "ASC" | "DESC";
}

/**
 * The filter and order a store needs. `where` is the query language's expression; it stays
 * `unknown`-typed here so that the store contract does not depend on the parser's internals.
 */
export interface ListRequest<Where = unknown> {
  where?: Where;
  orderBy?: OrderTerm[];
  limit: number;
  after?: Cursor;
  /**
   * Read permission, asked for a batch of records at once (so that what it reads besides, such as
   * parents, is read once per batch): records it refuses are skipped and the page is filled from
   * further reads.
   */
  accept?: (items: Item[]) => Promise<boolean[]>;
  /**
   * A byte budget besides `limit`: the page ends before the record that would carry the sum of
   * `sizeOf` past `maxBytes` (a page always holds at least one record), and `next` resumes there.
   */
  maxBytes?: number;
  sizeOf?: (item: Item) => number;
  /**
   * A read budget besides `limit`: the store evaluates at most this many stored records (what it
   * reads, before the filter and `accept`). When the budget ends before the page is full and
   * before the data does, the page is short and `next` resumes right after the last record read.
   */
  maxRead?: number;
  /**
   * Bytes shared by every page of one response (GraphQL aliases, relation lists): each record's
   * `sizeOf` is drawn from it. A page ends before a record the budget cannot hold, even its first
   * (then the page is empty and `next` resumes at that record), except the response's very first
   * record, so a response always makes progress.
   */
  responseBytes?: ByteBudget;
}

/** What is left of a response's byte budget, shared by its pages. */
export interface ByteBudget {
  remaining: number;
  spent: number;
}

export interface Page {
  items: Item[];
  /**
   * Present when more matching records exist after the last item, or when the read budget
   * (`maxRead`) ended before the data did (more may exist; the page may even be empty).
   */
  next?: Cursor;
  /**
   * Stored records the store evaluated for this page (before the filter and permission): a sparse
   * filter's short or empty page with a `next` still shows how far the listing went.
   */
  scanned?: number;
}

/**
 * The first page of many listings that differ only in the value of one attribute (the children of
 * each parent in view): `scopes[i].where` holds `field = scopes[i].value` as a top-level conjunct,
 * and everything else (order, limit, permission, byte budget) is shared.
 */
export interface ListEachRequest<Where = unknown> extends Omit<ListRequest<Where>, "where" | "after"> {
  /** The partition key of the table or of an index, so that all scopes are read together by key. */
  field: string;
  scopes: { value: KeyValue; where: Where }[];
}

export interface WriteOptions {
  /** Optimistic concurrency: the write happens only if the stored `__version` equals this. */
  expectedVersion?: number;
  /**
   * The write happens only if these top-level attributes still hold these values (`undefined`:
   * absent); a failed condition is a PreconditionFailedError like a stale version.
   */
  expectedFields?: Record<string, unknown>;
}

/** A read or write the store refused because the data did not match its guard. */
export type StoreGuard = "exists" | "missing" | "version";

/** Pages of a paged read: the first at most `first` items, each later one at most twice the one before, none over `largest`. */
export interface PageSizes {
  first: number;
  largest: number;
}

/**
 * The storage port: core owns the contract, lib/store implements it (so a new store depends on core
 * and never the reverse). One contract, three implementations (DynamoDB, memory, file) held
 * together by one shared test suite. Every stored item carries `__version`, which each write increments.
 */
export interface Repository {
  readonly table: TableShape;
  get(key: Key): Promise<Item | undefined>;
  /** Missing keys are simply absent from the result; order is not guaranteed. */
  getMany(keys: Key[]): Promise<Item[]>;
  /**
   * Every item whose `field` equals one of `values`, in any order. `field` must be the partition
   * key of the table or of an index, so that DynamoDB reads it as key lookups, never a Scan (the
   * join rows of many parents in a constant number of calls).
   */
  findByField(field: string, values: KeyValue[]): Promise<Item[]>;
  /**
   * The same items as `findByField`, page by page as the store reads them, so a caller can act on
   * the first while the rest are read. Optional: without it, `findByField` is the one page.
   */
  findByFieldPages?(field: string, values: KeyValue[], sizes: PageSizes): AsyncIterable<Item[]>;
  /** Fails with ConflictError when the key exists: a create never overwrites. */
  create(item: Item): Promise<Item>;
  /** Full replace. NotFoundError when missing, PreconditionFailedError on a stale version. */
  replace(key: Key, item: Item, options?: WriteOptions): Promise<Item>;
  /** Writes only the given attributes (and removes the listed ones); others are left untouched. */
  patch(key: Key, set: Item, remove: string[], options?: WriteOptions): Promise<Item>;
  /** Returns the deleted item. NotFoundError when missing, PreconditionFailedError on a stale version. */
  delete(key: Key, options?: WriteOptions): Promise<Item>;
  /**
   * Adds `by` to the numeric attribute `field` of an existing item (absent counts as 0) only if the
   * result stays within 0 and `max`, in one atomic write: of writers racing for a counter's last
   * unit exactly one gets it, and a loser costs that one write, never a retry. The new value, or
   * undefined when the bound refused it (nothing written). NotFoundError when the item is missing.
   * Optional: stores that hold counters (DynamoDB, memory, file) have it.
   */
  adjust?(key: Key, field: string, by: number, max: number): Promise<number | undefined>;
  list(request: ListRequest): Promise<Page>;
  /**
   * `pages[i]` is exactly `list({ ...request, where: scopes[i].where })`: the same records in the
   * same order, and a `next` that `list` resumes from. A store reads the scopes together (DynamoDB:
   * a PartiQL `IN` per 50 values) and asks `accept` for all of them at once. Optional: a store
   * without it (a wrapper such as v3's user mapping) is listed scope by scope (`listEachOf`).
   */
  listEach?(request: ListEachRequest): Promise<Page[]>;
  /** Removes everything: for tests and local seeding only. */
  clear(): Promise<void>;
}

export type RepositoryFactory = (modelName: string, table: TableShape) => Repository;

/** `repository.listEach`, or one `list` per scope where the store has no batched read. */
export function listEachOf(repository: Repository, request: ListEachRequest): Promise<Page[]> {
  if (repository.listEach) return repository.listEach(request);
  const { field: _field, scopes, ...common } = request;
  return Promise.all(scopes.map(({ where }) => repository.list({ ...common, where })));
}
