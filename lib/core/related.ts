import type { ModelClass, Related } from "./model.ts";
import type { ModelInfo } from "./model-info.ts";
import type { Item, KeyValues } from "./records.ts";
import { omit, stripServerOnly } from "./sanitize.ts";

/** Reads records by key (one batched read, whatever the number of keys). */
export type RecordLoader = (info: ModelInfo, keys: KeyValues[]) => Promise<Item[]>;

/** DynamoDB's largest partition key: a longer key cannot name a record, and is not sent. */
export const MAX_KEY_BYTES = 2048;

export function isKeyValue(value: unknown): value is string | number {
  return (typeof value === "string" && value !== "") || typeof value === "number";
}

interface Waiting {
  id: string;
  resolve: (item: Item | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * The related records the policies of one caller read (`Related`). The policies of a page run
 * together: the keys they ask for in the same turn are read in one call per related model, and a
 * record read once is kept for the caller's request (one `Permissions`), so N records cost one
 * read per related model however many of them name the same parent.
 */
export class RelatedRecords {
  private readonly cache = new Map<string, Promise<Item | undefined>>();
  private readonly waiting = new Map<string, { info: ModelInfo; keyField: string; entries: Waiting[] }>();

  constructor(
    private readonly load: RecordLoader,
    private readonly resolve: (cls: ModelClass) => ModelInfo,
  ) {}

  /** `observed` collects the reference fields read, so that a write is conditioned on them too. */
  of(info: ModelInfo, item: Item, observed?: Set<string>): Related {
    return {
      get: async <T extends object>(name: string): Promise<T | undefined> => {
        const relation = info.relations[name];
        if (relation?.kind !== "belongsTo") throw new Error(`${info.name} has no belongs-to relation '${name}'`);
        observed?.add(relation.field);
        const value = item[relation.field];
        if (!isKeyValue(value) || Buffer.byteLength(String(value)) > MAX_KEY_BYTES) return undefined;
        const target = this.resolve(relation.target());
        if (target.keyFields.length !== 1) throw new Error(`${info.name}.${name}: a related read needs ${target.name} to have a one-field key`);
        const found = await this.read(target, target.keyFields[0] as string, value);
        // A copy: a policy that changes what it was given changes nothing another policy sees.
        return found === undefined ? undefined : (structuredClone(found) as T);
      },
    };
  }

  private read(info: ModelInfo, keyField: string, value: string | number): Promise<Item | undefined> {
    const id = `${info.name}\u0000${JSON.stringify(value)}`;
    const known = this.cache.get(id);
    if (known) return known;
    const promise = new Promise<Item | undefined>((resolve, reject) => {
      const batch = this.waiting.get(info.name) ?? { info, keyField, entries: [] };
      this.waiting.set(info.name, batch);
      batch.entries.push({ id, resolve, reject });
      // After the promise jobs already queued: the sibling policies of a page have asked by then.
      if (batch.entries.length === 1) void Promise.resolve().then(() => process.nextTick(() => void this.dispatch(info.name)));
    });
    this.cache.set(id, promise);
    return promise;
  }

  private async dispatch(model: string): Promise<void> {
    const batch = this.waiting.get(model);
    this.waiting.delete(model);
    if (!batch) return;
    const keys = batch.entries.map((w) => ({ [batch.keyField]: JSON.parse(w.id.slice(model.length + 1)) as string | number }));
    try {
      const found = await this.load(batch.info, keys);
      // Behavior state (a password's hash) is no policy's business: left out with the `__` fields.
      const shown = (item: Item): Item => omit(stripServerOnly(item), batch.info.behaviors);
      const byId = new Map(found.map((item) => [`${model}\u0000${JSON.stringify(item[batch.keyField])}`, shown(item)]));
      for (const w of batch.entries) w.resolve(byId.get(w.id));
    } catch (error) {
      for (const w of batch.entries) {
        this.cache.delete(w.id);
        w.reject(error);
      }
    }
  }
}
