import type { Item, Key, KeyValue, ListRequest, Page, Repository, WriteOptions } from "../../store/repository.ts";
import { userOnLoad } from "./field-map.ts";

/**
 * The identity model's repository while `compatibility.v3` is on: a v3 row's `__password` reads as
 * `password.__hash` (mapped on load), so the password behavior and every flow see one
 * shape. Writes pass through: a full replace stores the mapped shape, a patch leaves the v3 field
 * for the migration, which then keeps the v4 hash.
 */
export class LegacyUserRepository implements Repository {
  constructor(private readonly inner: Repository) {}

  get table() {
    return this.inner.table;
  }

  async get(key: Key): Promise<Item | undefined> {
    const item = await this.inner.get(key);
    return item && userOnLoad(item);
  }

  async getMany(keys: Key[]): Promise<Item[]> {
    return (await this.inner.getMany(keys)).map(userOnLoad);
  }

  async findByField(field: string, values: KeyValue[]): Promise<Item[]> {
    return (await this.inner.findByField(field, values)).map(userOnLoad);
  }

  async list(request: ListRequest): Promise<Page> {
    const page = await this.inner.list(request);
    return { ...page, items: page.items.map(userOnLoad) };
  }

  create(item: Item): Promise<Item> {
    return this.inner.create(item);
  }

  replace(key: Key, item: Item, options?: WriteOptions): Promise<Item> {
    return this.inner.replace(key, item, options);
  }

  async patch(key: Key, set: Item, remove: string[], options?: WriteOptions): Promise<Item> {
    // A new v4 hash makes the v3 one stale: it goes in the same write.
    const stale = set.password !== undefined && !remove.includes("__password") ? [...remove, "__password"] : remove;
    return userOnLoad(await this.inner.patch(key, set, stale, options));
  }

  delete(key: Key, options?: WriteOptions): Promise<Item> {
    return this.inner.delete(key, options);
  }

  clear(): Promise<void> {
    return this.inner.clear();
  }
}
