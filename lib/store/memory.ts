import type { TableShape } from "../core/model-info.ts";
import { copyItem } from "./copy.ts";
import { ItemStore } from "./item-store.ts";
import type { Item } from "./repository.ts";

/** Items in a Map, deep-copied in and out (copyItem) so callers never share state with the store. */
export class MemoryRepository extends ItemStore {
  private readonly items = new Map<string, Item>();
  /** `all()`'s answer until the next change: listings reuse it, and the orders sorted from it. */
  private snapshot: Item[] | undefined;

  constructor(table: TableShape) {
    super(table);
  }

  protected async load(id: string): Promise<Item | undefined> {
    const item = this.items.get(id);
    return item && copyItem(item);
  }

  protected async save(id: string, item: Item): Promise<void> {
    this.items.set(id, copyItem(item));
    this.snapshot = undefined;
  }

  protected async remove(id: string): Promise<void> {
    this.items.delete(id);
    this.snapshot = undefined;
  }

  protected async all(): Promise<Item[]> {
    return (this.snapshot ??= [...this.items.values()]);
  }

  async clear(): Promise<void> {
    this.items.clear();
    this.snapshot = undefined;
  }
}
