// The port (Repository and the shapes it reads and writes) belongs to the domain that uses it:
// lib/core/repository.ts. It is re-exported here for the implementations beside it; what follows
// is what those implementations share.
export type {
  ByteBudget,
  Cursor,
  Item,
  Key,
  KeyValue,
  ListEachRequest,
  ListRequest,
  OrderTerm,
  Page,
  PageSizes,
  Repository,
  RepositoryFactory,
  StoreGuard,
  WriteOptions,
} from "../core/repository.ts";
export { listEachOf } from "../core/repository.ts";
import type { Item, ListRequest } from "../core/repository.ts";

/** Decides when a page is full: at `limit` records, or when the next one would pass the byte budget. */
export class PageFill {
  private bytes = 0;
  readonly items: Item[] = [];

  constructor(private readonly request: ListRequest) {}

  /** Adds the record, or answers false when the page is full without it. */
  add(item: Item): boolean {
    if (this.items.length >= this.request.limit) return false;
    const { maxBytes, sizeOf, responseBytes: shared } = this.request;
    const size = (maxBytes !== undefined || shared) && sizeOf ? sizeOf(item) : 0;
    if (maxBytes !== undefined && this.items.length > 0 && this.bytes + size > maxBytes) return false;
    if (shared && size > shared.remaining && shared.spent > 0) return false;
    this.bytes += size;
    if (shared) {
      shared.remaining -= size;
      shared.spent += size;
    }
    this.items.push(item);
    return true;
  }
}

/** The records of `rows` that `accept` lets through, in order. */
export async function acceptedRows(request: ListRequest, rows: Item[]): Promise<Item[]> {
  if (!request.accept || rows.length === 0) return rows;
  const verdicts = await request.accept(rows);
  return rows.filter((_, i) => verdicts[i] === true);
}
