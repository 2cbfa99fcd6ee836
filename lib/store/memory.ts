import type { TableShape } from "../core/model-info.ts";
import { copyItem } from "./copy.ts";
import { ItemStore } from "./item-store.ts";
import type { Item } from "./repository.ts";

/** Items in a Map, deep-copied in and out (copyItem) so callers never share state with the store. */
export class MemoryRepository extends ItemStore {
  private readonly items = new Map<string, Item>();

  constructor(table: TableShape) {
    super(table);
  }

  protected async load(id: string): Promise<Item | undefined> {
    const item = this.items.get(id);
    return item && copyItem(item);
  }

  protected async save(id: string, item: Item): Promise<void> {
    this.items.set(id, copyItem(item));
  }

  protected async remove(id: string): Promise<void> {
    this.items.delete(id);
  }

  protected async all(): Promise<Item[]> {
    return [...this.items.values()];
  }

  async clear(): Promise<void> {
    this.items.clear();
  }
}
