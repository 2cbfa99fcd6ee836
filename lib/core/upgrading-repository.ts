// Straight to the files, not lib/query's index: a function that gets records without listing
// (rest-read, auth-session) must not bundle the query parser (test/bench/bundle-contents.test.ts).
import type { Expression } from "../query/ast.ts";
import { withDefaults } from "../query/defaults.ts";
import { evaluate } from "../query/evaluate.ts";
import type { TableShape } from "./model-info.ts";
import { MODEL_VERSION_FIELD, type RecordUpgrade } from "./record-upgrade.ts";
import type { Item, Key, KeyValue, ListEachRequest, ListRequest, Page, PageSizes, Repository, WriteOptions } from "./repository.ts";

/** `__modelVersion` older than `version`, or absent (version 1). */
function olderThan(version: number): Expression {
  return {
    kind: "or",
    operands: [
      { kind: "isNull", field: MODEL_VERSION_FIELD, negated: false },
      { kind: "compare", field: MODEL_VERSION_FIELD, operator: "<", value: version },
    ],
  };
}

const conjuncts = (where: Expression): Expression[] => (where.kind === "and" ? where.operands : [where]);

/**
 * A model's repository as the domain sees it when its records can be stored in an older shape
 * (docs/model-versions.md): every record read is served upgraded,
 * every record written is stored current-shaped, and a filter matches a record as it is served.
 *
 * Filters: a predicate on a defaulted field is rewritten so that the store, DynamoDB included,
 * finds old rows exactly as their served value says (lib/query/defaults.ts). What an upgrade step
 * does cannot be rewritten: for a model with steps, the top-level conjuncts not on a key attribute
 * also let through every record of an older version, and the original filter is evaluated on
 * those records once upgraded, before the read permission (the store's `accept`), so pages,
 * budgets and cursors stay the store's own. A conjunct on a key attribute (the table's or an
 * index's) is kept as written: the store reads by the stored key, which steps cannot change.
 */
export class UpgradingRepository implements Repository {
  /** Served form of each raw item read, so that one read is upgraded once (accept, then the page). */
  private readonly served = new WeakMap<Item, Item>();
  private readonly keyAttributes: ReadonlySet<string>;
  readonly findByFieldPages?: (field: string, values: KeyValue[], sizes: PageSizes) => AsyncIterable<Item[]>;
  readonly listEach?: (request: ListEachRequest) => Promise<Page[]>;
  readonly adjust?: (key: Key, field: string, by: number, max: number) => Promise<number | undefined>;

  constructor(
    private readonly inner: Repository,
    private readonly upgrade: RecordUpgrade,
  ) {
    const { key, indexes } = inner.table;
    this.keyAttributes = new Set([key.hash, ...(key.range ? [key.range] : []), ...indexes.flatMap((i) => [i.hash, ...(i.range ? [i.range] : [])])]);
    const pages = inner.findByFieldPages?.bind(inner);
    if (pages) {
      const view = this.view;
      this.findByFieldPages = async function* (field, values, sizes) {
        for await (const page of pages(field, values, sizes)) yield page.map(view);
      };
    }
    const listEach = inner.listEach?.bind(inner);
    if (listEach) this.listEach = async (request) => (await listEach(this.eachRequest(request))).map((page) => this.servedPage(page));
    const adjust = inner.adjust?.bind(inner);
    if (adjust) this.adjust = adjust;
  }

  get table(): TableShape {
    return this.inner.table;
  }

  private readonly view = (item: Item): Item => {
    let shown = this.served.get(item);
    if (!shown) {
      shown = this.upgrade.upgrade(item);
      this.served.set(item, shown);
    }
    return shown;
  };

  private servedPage(page: Page): Page {
    return { ...page, items: page.items.map(this.view) };
  }

  /**
   * What the store runs: exact on defaults; with steps, the conjuncts a step may have changed are
   * widened together to records of older versions (checked again on the served record in `accept`).
   */
  private storedFilter(where: Expression): Expression {
    const rewritten = withDefaults(where, this.upgrade.defaults);
    if (!this.upgrade.stepped) return rewritten;
    const all = conjuncts(rewritten);
    const onKeys = all.filter((conjunct) => expressionOnKeys(conjunct, this.keyAttributes));
    const others = all.filter((conjunct) => !onKeys.includes(conjunct));
    if (others.length === 0) return rewritten;
    const rest: Expression = others.length === 1 ? (others[0] as Expression) : { kind: "and", operands: others };
    const widened: Expression = { kind: "or", operands: [rest, olderThan(this.upgrade.version)] };
    return onKeys.length === 0 ? widened : { kind: "and", operands: [...onKeys, widened] };
  }

  /** The store's `accept`, on served records, after the original filter where the store's was widened. */
  private accepting(accept: ListRequest["accept"], whereOf: (item: Item) => Expression | undefined): ((items: Item[]) => Promise<boolean[]>) | undefined {
    if (!accept && !this.upgrade.stepped) return undefined;
    return async (items) => {
      const shown = items.map(this.view);
      const matching = shown.map((item) => {
        const where = this.upgrade.stepped ? whereOf(item) : undefined;
        return !where || evaluate(where, item);
      });
      const candidates = shown.filter((_, i) => matching[i]);
      const verdicts = accept && candidates.length > 0 ? await accept(candidates) : candidates.map(() => true);
      let next = 0;
      return matching.map((match) => (match ? verdicts[next++] === true : false));
    };
  }

  private listRequest(request: ListRequest): ListRequest {
    const where = request.where as Expression | undefined;
    const accept = this.accepting(request.accept, () => where);
    const { accept: _given, where: _where, ...rest } = request;
    return { ...rest, ...(where ? { where: this.storedFilter(where) } : {}), ...(accept ? { accept } : {}) };
  }

  private eachRequest(request: ListEachRequest): ListEachRequest {
    const byValue = new Map(request.scopes.map((scope) => [scope.value, scope.where as Expression | undefined]));
    const accept = this.accepting(request.accept, (item) => byValue.get(item[request.field] as KeyValue));
    const { accept: _given, ...rest } = request;
    return {
      ...rest,
      scopes: request.scopes.map((scope) => ({ value: scope.value, where: scope.where ? this.storedFilter(scope.where as Expression) : scope.where })),
      ...(accept ? { accept } : {}),
    };
  }

  async get(key: Key): Promise<Item | undefined> {
    const item = await this.inner.get(key);
    return item && this.view(item);
  }

  async getMany(keys: Key[]): Promise<Item[]> {
    return (await this.inner.getMany(keys)).map(this.view);
  }

  async findByField(field: string, values: KeyValue[]): Promise<Item[]> {
    return (await this.inner.findByField(field, values)).map(this.view);
  }

  async list(request: ListRequest): Promise<Page> {
    return this.servedPage(await this.inner.list(this.listRequest(request)));
  }

  async create(item: Item): Promise<Item> {
    return this.inner.create(this.upgrade.stamp(item));
  }

  async replace(key: Key, item: Item, options?: WriteOptions): Promise<Item> {
    return this.inner.replace(key, this.upgrade.stamp(item), options);
  }

  /**
   * Writes the given attributes only: the domain sends a record served upgraded through `replace`
   * instead (the whole record, current-shaped), so what a patch lands on is already current.
   */
  async patch(key: Key, set: Item, remove: string[], options?: WriteOptions): Promise<Item> {
    return this.view(await this.inner.patch(key, set, remove, options));
  }

  async delete(key: Key, options?: WriteOptions): Promise<Item> {
    return this.view(await this.inner.delete(key, options));
  }

  clear(): Promise<void> {
    return this.inner.clear();
  }
}

/** Whether every field the expression names is a key attribute (so a step cannot have changed it). */
function expressionOnKeys(expression: Expression, keys: ReadonlySet<string>): boolean {
  switch (expression.kind) {
    case "and":
    case "or":
      return expression.operands.every((operand) => expressionOnKeys(operand, keys));
    case "not":
      return expressionOnKeys(expression.operand, keys);
    default:
      return keys.has(expression.field);
  }
}
