import type { Context } from "./context.ts";
import { NotFoundError, PermissionError, UnauthenticatedError, ValidationError } from "./errors.ts";
import type { Action, CrudAction, Decision, ModelClass } from "./model.ts";
import { describeModel, type ModelInfo } from "./model-info.ts";
import { instantiate, type Item, type KeyValues } from "./records.ts";
import { isKeyValue, MAX_KEY_BYTES, RelatedRecords, type RecordLoader } from "./related.ts";
import type { BelongsTo } from "./relations.ts";

/** A chain of parents deeper than this is a declaration loop, not a data model. */
const MAX_PARENT_DEPTH = 8;

interface ParentRule {
  relation: BelongsTo;
  parent: ModelInfo;
  required: CrudAction;
}

function parentRules(info: ModelInfo, action: Action, resolve: (cls: ModelClass) => ModelInfo): ParentRule[] {
  if (typeof action !== "string") return [];
  const rules: ParentRule[] = [];
  for (const relation of Object.values(info.relations)) {
    if (relation.kind !== "belongsTo") continue;
    const required = relation.requires?.[action];
    if (required) rules.push({ relation, parent: resolve(relation.target()), required });
  }
  return rules;
}

function parentKeyField(info: ModelInfo, parent: ModelInfo): string {
  if (parent.keyFields.length !== 1) throw new Error(`${info.name}: a parent rule needs ${parent.name} to have a one-field key`);
  return parent.keyFields[0] as string;
}

function sameKeyValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Every permission question of one caller: the model's own `canAct`, then each parent the model
 * delegates to (`belongsTo(..., { requires })`), asked for many records at once so that a page of
 * children costs one batched read of their parents per parent model, whatever its size.
 */
export class Permissions {
  constructor(
    private readonly ctx: Context,
    private readonly load: RecordLoader,
    private readonly resolve: (cls: ModelClass) => ModelInfo = describeModel,
  ) {
    this.related = new RelatedRecords(load, resolve);
  }

  /** The records the policies of this caller read, batched and kept for the request. */
  private readonly related: RelatedRecords;

  /**
   * The model's own policy on one record, noting the fields it reads when asked to (its own, and
   * the references of the related records it reads).
   */
  private async own(info: ModelInfo, item: Item, action: Action, observed?: Set<string>): Promise<Decision> {
    const instance = instantiate(info, item);
    return (observed ? watched(instance, observed) : instance).canAct(this.ctx, action, this.related.of(info, item, observed));
  }

  /**
   * `observed`, when given, collects the record fields the decision read (the policy's own reads
   * and the parent references), so that a write can be conditioned on exactly those.
   */
  async decideMany(info: ModelInfo, items: Item[], action: Action, depth = 0, observed?: Set<string>): Promise<Decision[]> {
    // Together: the related records the policies of a page read are one batched read per model.
    const decisions: Decision[] = await Promise.all(items.map((item) => this.own(info, item, action, observed)));
    await this.applyParentRules(info, items, decisions, parentRules(info, action, this.resolve), depth, observed);
    return decisions;
  }

  /** Narrows `decisions` (one per item) by the parents' verdicts under `rules`. */
  private async applyParentRules(
    info: ModelInfo,
    items: Item[],
    decisions: Decision[],
    rules: ParentRule[],
    depth: number,
    observed?: Set<string>,
  ): Promise<void> {
    for (const rule of rules) {
      if (depth >= MAX_PARENT_DEPTH) throw new Error(`${info.name}: parent permission rules nest deeper than ${MAX_PARENT_DEPTH}`);
      const keyField = parentKeyField(info, rule.parent);
      observed?.add(rule.relation.field);
      const known = rule.required === "read" ? this.knownReadable.get(rule.parent.name) : undefined;
      const waiting = items.flatMap((item, i) => (decisions[i] === true && !known?.has(JSON.stringify(item[rule.relation.field])) ? [i] : []));
      const wanted = new Map<string, KeyValues>();
      for (const i of waiting) {
        const value = (items[i] as Item)[rule.relation.field];
        if (isKeyValue(value)) wanted.set(JSON.stringify(value), { [keyField]: value });
      }
      const parents = wanted.size > 0 ? await this.load(rule.parent, [...wanted.values()]) : [];
      const verdicts = await this.decideMany(rule.parent, parents, rule.required, depth + 1);
      const verdictOf = new Map(parents.map((parent, i) => [JSON.stringify(parent[keyField]), verdicts[i] as Decision]));
      // The reason reaches the caller: it names the rule, never the parent's own verdict (which
      // would tell a parent the caller may not read from a missing one, or why it is hidden).
      const reason = `requires ${rule.required} on the ${rule.parent.name} it belongs to`;
      for (const i of waiting) {
        const verdict = verdictOf.get(JSON.stringify((items[i] as Item)[rule.relation.field]));
        decisions[i] = verdict === true ? true : reason;
      }
    }
  }

  /**
   * A create or an update, decided on every record it reads and produces (`records`) and on the
   * parents the record it produces names. In order: the model's own policy (an anonymous caller is
   * told to authenticate before anything about a parent); each parent the model delegates to must
   * exist and be readable by the caller, else a 400 naming the field, the same for a missing and a
   * hidden parent; then the parent rules of `action`; and when an update moves the record to
   * another parent, what a create under that parent needs (moving is creating there).
   */
  async authorizeWrite(info: ModelInfo, action: "create" | "update", records: Item[], produced: Item, stored?: Item, observed?: Set<string>): Promise<void> {
    for (const record of records) authorize(await this.own(info, record, action, observed), this.ctx);
    await this.assertParentsNamed(info, produced, observed);
    await this.authorize(info, action, records, observed);
    if (!stored) return;
    const moved = parentRules(info, "create", this.resolve).filter((rule) => !sameKeyValue(produced[rule.relation.field], stored[rule.relation.field]));
    if (moved.length === 0) return;
    const decisions: Decision[] = [true];
    await this.applyParentRules(info, [produced], decisions, moved, 0);
    authorize(decisions[0] as Decision, this.ctx);
  }

  /** Each parent `record` names through a relation that carries permission rules exists and is readable. */
  private async assertParentsNamed(info: ModelInfo, record: Item, observed?: Set<string>): Promise<void> {
    for (const relation of Object.values(info.relations)) {
      if (relation.kind !== "belongsTo" || !relation.requires || Object.keys(relation.requires).length === 0) continue;
      const value = record[relation.field];
      // An optional parent left unnamed is the schema's to judge.
      if (value === undefined || value === null) continue;
      observed?.add(relation.field);
      const parent = this.resolve(relation.target());
      const keyField = parentKeyField(info, parent);
      const known = this.knownReadable.get(parent.name)?.has(JSON.stringify(value)) ?? false;
      // A key DynamoDB would refuse to read names nothing: the same answer, without a call.
      const loadable = isKeyValue(value) && Buffer.byteLength(String(value)) <= MAX_KEY_BYTES;
      const found = known || !loadable ? [] : await this.load(parent, [{ [keyField]: value }]);
      if (!known && (await this.readable(parent, found)).length === 0) {
        throw new ValidationError([{ path: `/${relation.field}`, message: `must name a ${parent.name} you can read` }]);
      }
      this.vouchReadable(parent, [value as string | number]);
    }
  }

  private readonly knownReadable = new Map<string, Set<string>>();

  /**
   * Records of `info` with these keys were just read by this caller through the domain: a child's
   * `read` requirement on them holds without reading them again (a relation's join rows).
   */
  vouchReadable(info: ModelInfo, keys: (string | number)[]): this {
    const known = this.knownReadable.get(info.name) ?? new Set<string>();
    for (const key of keys) known.add(JSON.stringify(key));
    this.knownReadable.set(info.name, known);
    return this;
  }

  async decide(info: ModelInfo, item: Item, action: Action, observed?: Set<string>): Promise<Decision> {
    return (await this.decideMany(info, [item], action, 0, observed))[0] as Decision;
  }

  /** The records the caller may read, in their order. */
  async readable(info: ModelInfo, items: Item[]): Promise<Item[]> {
    if (items.length === 0) return [];
    const decisions = await this.decideMany(info, items, "read");
    return items.filter((_, i) => decisions[i] === true);
  }

  /** A record the caller may not read does not exist for them: the same 404 as a missing one. */
  async assertReadable(info: ModelInfo, item: Item | undefined, observed?: Set<string>): Promise<Item> {
    if (!item || (await this.decide(info, item, "read", observed)) !== true) throw new NotFoundError(`${info.name} not found`);
    return item;
  }

  /** Every decision must allow; the first refusal answers (401 for an anonymous caller). */
  async authorize(info: ModelInfo, action: Action, records: Item[], observed?: Set<string>): Promise<void> {
    for (const record of records) authorize(await this.decide(info, record, action, observed), this.ctx);
  }
}

/** The instance as the policy sees it, noting every own field the policy reads. */
function watched<T extends object>(instance: T, observed: Set<string>): T {
  return new Proxy(instance, {
    get(target, property, receiver) {
      // Anything not a method of the model is a record field, present or not.
      if (typeof property === "string" && !(property in Object.getPrototypeOf(target))) observed.add(property);
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/**
 * Deny by default; an anonymous caller is told to authenticate rather than that it is forbidden.
 * The policy's reason is the message ("sign in to react"): callers reach this only for a record
 * they may read, or one they create, so it tells nothing a 404 hides.
 */
export function authorize(decision: Decision, ctx: Context): void {
  if (decision === true) return;
  const reason = typeof decision === "string" && decision.trim() !== "" ? decision : undefined;
  if (ctx.getCurrentUserId() === undefined) throw new UnauthenticatedError(reason);
  throw new PermissionError(reason);
}
