import type { TableShape } from "../core/model-info.ts";
import { copyItem } from "./copy.ts";
import { ItemStore } from "./item-store.ts";
import type { Item } from "./repository.ts";

/** Items in a Map, deep-copied in and out (copyItem) so callers never share state with the store. */
export class MemoryRepository extends ItemStore {
  /**
   * The items, and `all()`'s answer until the next change (listings reuse it, and the orders sorted
   * from it). One object, changed in place: a wrapper made with Object.create (fault injection in
   * tests) writes through to the same state instead of shadowing a field of its own.
   */
  private readonly state: { items: Map<string, Item>; snapshot: Item[] | undefined } = { items: new Map(), snapshot: undefined };

  constructor(table: TableShape) {
    super(table);
  }

  protected async load(id: string): Promise<Item | undefined> {
    const item = this.state.items.get(id);
    return item && copyItem(item);
  }

  protected async save(id: string, item: Item): Promise<void> {
    this.state.items.set(id, copyItem(item));
    this.state.snapshot = undefined;
  }

  protected async remove(id: string): Promise<void> {
    this.state.items.delete(id);
    this.state.snapshot = undefined;
  }

  protected async all(): Promise<Item[]> {
    return (this.state.snapshot ??= [...this.state.items.values()]);
  }

  async clear(): Promise<void> {
    this.state.items.clear();
    this.state.snapshot = undefined;
  }
}
