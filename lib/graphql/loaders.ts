import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import type { ListArguments, ListResult } from "../core/list.ts";
import { keyOf, type ModelInfo } from "../core/model-info.ts";
import type { Item, KeyValues } from "../core/records.ts";
import type { KeyValue } from "../store/repository.ts";
import { Batcher } from "./batcher.ts";

/** A key value as a map key, typed so that "1" and 1 stay apart, without writing JSON. */
function valueId(value: KeyValue): string {
  return typeof value === "number" ? `n${value}` : `s${value}`;
}

function recordId(info: ModelInfo, key: Record<string, unknown>): string {
  // Most keys are one string or number: no JSON array for them.
  if (info.keyFields.length === 1) {
    const value = key[info.keyFields[0] as string];
    if (typeof value === "string" || typeof value === "number") return valueId(value);
  }
  return JSON.stringify(info.keyFields.map((f) => key[f] ?? null));
}

/**
 * Per-request loaders: one batched read per model for records by key (BatchGetItem), and one per
 * (model, scope attributes, arguments) for the first pages of children (contains relations, and
 * the join rows of many-to-many).
 * Every record passes the read permission check and the model's redaction.
 */
export class Loaders {
  // Made on first use: every GraphQL request gets loaders, and a single-record query uses none.
  private records?: Map<string, Batcher<KeyValues, Item | null>>;
  private pages?: Map<string, Batcher<Record<string, KeyValue>, PromiseSettledResult<ListResult>>>;

  constructor(
    private readonly app: Application,
    private readonly ctx: Context,
  ) {}

  record(info: ModelInfo, key: KeyValues): Promise<Item | null> {
    let batcher = (this.records ??= new Map()).get(info.name);
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

  /**
   * The first page of `child` records scoped to `scope` (child attributes equal to the key of a
   * record of `parent` this request has shown: a contains relation), batched over every parent
   * asking with the same arguments, read by the scope's first attribute.
   */
  async children(child: ModelInfo, scope: Record<string, KeyValue>, args: ListArguments, parent: ModelInfo): Promise<ListResult> {
    const fields = Object.keys(scope);
    const id = JSON.stringify([child.name, fields, parent.name, args.q ?? "", args.limit ?? null, args.offset ?? null]);
    let batcher = (this.pages ??= new Map()).get(id);
    if (!batcher) {
      batcher = new Batcher<Record<string, KeyValue>, PromiseSettledResult<ListResult>>(
        (s) => JSON.stringify(fields.map((f) => s[f])),
        async (scopes) => {
          const pages = await this.app.domain.queryEach(this.ctx, child, fields[0] as string, scopes, args, parent);
          return new Map(scopes.map((s, i) => [JSON.stringify(fields.map((f) => s[f])), pages[i] as PromiseSettledResult<ListResult>]));
        },
        { status: "fulfilled", value: { results: [], continuationToken: null, scanned: 0 } },
      );
      this.pages.set(id, batcher);
    }
    const page = await batcher.load(scope);
    if (page.status === "rejected") throw page.reason;
    return page.value;
  }
}
