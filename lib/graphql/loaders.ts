import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import { keyOf, type ModelInfo } from "../core/model-info.ts";
import type { Item, KeyValues } from "../core/records.ts";
import type { KeyValue } from "../store/repository.ts";
import { Batcher } from "./batcher.ts";

function recordId(info: ModelInfo, key: Record<string, unknown>): string {
  return JSON.stringify(info.keyFields.map((f) => key[f] ?? null));
}

/**
 * Per-request loaders: one batched read per model for records by key (BatchGetItem), and one per
 * (model, attribute) for records by a partition attribute (the join rows of many-to-many).
 * Every record passes the read permission check and the model's redaction.
 */
export class Loaders {
  private readonly records = new Map<string, Batcher<KeyValues, Item | null>>();
  private readonly related = new Map<string, Batcher<KeyValue, Item[]>>();

  constructor(
    private readonly app: Application,
    private readonly ctx: Context,
  ) {}

  record(info: ModelInfo, key: KeyValues): Promise<Item | null> {
    let batcher = this.records.get(info.name);
    if (!batcher) {
      batcher = new Batcher<KeyValues, Item | null>(
        (k) => recordId(info, k),
        async (keys) => {
          const items = await this.app.domain.load(this.ctx, info, keys);
          return new Map(items.map((item) => [recordId(info, keyOf(info, item)), item]));
        },
        null,
      );
      this.records.set(info.name, batcher);
    }
    return batcher.load(key);
  }

  /** `value`s must be keys of records of the related model that this request has read (relation parents). */
  byField(info: ModelInfo, field: string, value: KeyValue): Promise<Item[]> {
    const id = `${info.name}.${field}`;
    let batcher = this.related.get(id);
    if (!batcher) {
      batcher = new Batcher<KeyValue, Item[]>(
        (v) => JSON.stringify(v),
        async (values) => {
          const groups = new Map<string, Item[]>();
          for (const item of await this.app.domain.loadByField(this.ctx, info, field, values, { parentsRead: true })) {
            const value = item[field] as KeyValue;
            const group = groups.get(JSON.stringify(value)) ?? [];
            group.push(item);
            groups.set(JSON.stringify(value), group);
          }
          return groups;
        },
        [],
      );
      this.related.set(id, batcher);
    }
    return batcher.load(value);
  }
}
