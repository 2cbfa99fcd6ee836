import { randomUUID } from "node:crypto";
import type { Repository, WriteOptions } from "./repository.ts";
import type { Context } from "./context.ts";
import type { ContinuationSealer } from "./continuation.ts";
import { ConflictError, PreconditionFailedError, ValidationError } from "./errors.ts";
import type { EventBus, LifecycleKind } from "./events.ts";
import { invokeModelOperation, invokeServiceOperation } from "./invoke.ts";
import type { ListArguments, ListResult } from "./list.ts";
import type { Listing } from "./listing.ts";
import { log, errorFields } from "./log.ts";
import type { ServiceEntry } from "./application.ts";
import { assertKeySizes, assertSameKey, parseKey, requireObject, toOutput, versionOf, type Item, type KeyValues } from "./records.ts";
import type { Expression } from "../query/ast.ts";
import type { ModelClass } from "./model.ts";
import { describeModel, type ModelInfo } from "./model-info.ts";
import { Permissions } from "./permission.ts";
import { wasUpgraded } from "./record-upgrade.ts";
import { omit, pick, stripServerOnly } from "./sanitize.ts";
import type { Validation } from "./validation.ts";

export interface DomainDeps {
  repository(info: ModelInfo): Repository;
  sealer(): ContinuationSealer;
  events: EventBus;
  now?: () => Date;
  /** The application's model of a class name (a subclass may stand in for a declared parent). */
  model?: (name: string) => ModelInfo | undefined;
  /** The application's validation and listing (ApplicationParts): each refused by name where missing. */
  validation(): Validation;
  listing(): Listing;
}

/** A record as the caller may see it, with the version that backs its ETag. */
export interface Versioned {
  data: Item;
  version: number;
}

export interface WriteRequest {
  /** The client's If-Match: the write happens only against this version. */
  expectedVersion?: number;
}

/**
 * A write without If-Match re-reads, re-decides and retries when another write lands first. Waits
 * are random (full jitter, capped) so racing writers spread out instead of colliding again in
 * lockstep; 20 concurrent PUTs on one record all land (test/reliability/concurrency.test.ts).
 */
const WRITE_ATTEMPTS = 12;
const retryPause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 5 * 2 ** attempt)));

/**
 * The one operation layer: every face (REST, GraphQL, WebSocket, CLI) calls these, and each does,
 * in order: permission check, stripping of server-only input, validation, the write, the event.
 */
export class Domain {
  constructor(private readonly deps: DomainDeps) {}

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  /** Client input minus what clients never write: `__` keys at any depth, behaviors, server fields. */
  private clientFields(info: ModelInfo, input: Item): Item {
    const owned = [...info.ownedFields].filter((f) => f in input);
    if (owned.length > 0) throw new ValidationError(owned.map((f) => ({ path: `/${f}`, message: "is set by the server and cannot be written" })));
    return omit(stripServerOnly(input), [...info.behaviors, ...info.serverFields]);
  }

  private async emit(info: ModelInfo, kind: LifecycleKind, key: KeyValues, record: Item, ctx: Context): Promise<void> {
    await this.deps.events.emit({ name: `${info.name}.${kind}`, model: info.name, kind, key, record }, (error) =>
      log.error("event listener failed", { event: `${info.name}.${kind}`, requestId: ctx.requestId, ...errorFields(error) }),
    );
  }

  private versioned(ctx: Context, info: ModelInfo, item: Item): Versioned {
    return { data: toOutput(ctx, info, item), version: versionOf(item) };
  }

  /** The permission checks of one caller (parents read in batches through the stores). */
  permissions(ctx: Context): Permissions {
    return new Permissions(
      ctx,
      (info, keys) => this.deps.repository(info).getMany(keys),
      (cls) => this.deps.model?.(cls.name) ?? describeModel(cls),
    );
  }

  /** `owned`: values of server-owned fields, from the server itself (never a client's body). */
  async create(ctx: Context, info: ModelInfo, input: unknown, owned: Item = {}): Promise<Versioned> {
    const fields = this.clientFields(info, requireObject(input));
    const ownedValues = pick(owned, [...info.ownedFields]);
    if (Object.keys(ownedValues).length > 0) this.deps.validation().assert(info.ownedSchema, ownedValues);
    const now = this.now();
    const candidate: Item = { ...fields, ...ownedValues, createdAt: now, updatedAt: now };
    if (info.generatedKey) candidate.uuid = info.cls.identity ? ctx.getCurrentUserId() : randomUUID();
    for (const relation of Object.values(info.relations)) {
      if (relation.kind === "belongsTo" && relation.fromCurrentUser) candidate[relation.field] = ctx.getCurrentUserId();
    }
    // Key sizes first: a parent check would otherwise read with a key DynamoDB refuses.
    assertKeySizes(info, candidate);
    await this.permissions(ctx).authorizeWrite(info, "create", [candidate], candidate);
    this.deps.validation().assert(info.inputSchema, fields);
    const stored = await this.deps.repository(info).create(candidate);
    await this.emit(info, "Created", parseKey(info, stored), stored, ctx);
    return this.versioned(ctx, info, stored);
  }

  async get(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const item = await this.permissions(ctx).assertReadable(info, await this.deps.repository(info).get(key));
    return this.versioned(ctx, info, item);
  }

  /**
   * A write decided on both states: the caller must be allowed the action on the record as stored
   * and on the record the write produces (so that an owner field cannot be handed to someone else),
   * and the write lands only on the version that was judged. Without If-Match a concurrent change
   * means: read again, judge again, write again.
   */
  private async decidedWrite(
    ctx: Context,
    info: ModelInfo,
    key: KeyValues,
    request: WriteRequest,
    write: (stored: Item, guard: WriteOptions) => Promise<Item>,
    produce?: (stored: Item) => Item,
    guardBy: "version" | "fields" = "version",
  ): Promise<Item> {
    const repository = this.deps.repository(info);
    const permissions = this.permissions(ctx);
    for (let attempt = 1; ; attempt++) {
      const observed = new Set<string>();
      const stored = await permissions.assertReadable(info, await repository.get(key), observed);
      const produced = produce?.(stored);
      if (produced) {
        assertKeySizes(info, produced);
        // The record a write produces answers for the parents it names, as a create does.
        await permissions.authorizeWrite(info, "update", [stored, produced], produced, stored, observed);
      } else {
        await permissions.authorize(info, "delete", [stored], observed);
      }
      const version = versionOf(stored);
      if (request.expectedVersion !== undefined && request.expectedVersion !== version) throw new PreconditionFailedError();
      // A patch without If-Match is conditioned only on the fields the decision read, so that
      // concurrent patches of other fields all land; anything else on the version judged.
      const guard: WriteOptions =
        guardBy === "fields" && request.expectedVersion === undefined
          ? { expectedFields: Object.fromEntries([...observed].filter((f) => !info.keyFields.includes(f)).map((f) => [f, stored[f]])) }
          : { expectedVersion: version };
      try {
        return await write(stored, guard);
      } catch (error) {
        // Without If-Match, a concurrent write just means: re-read, re-decide, apply on the new base.
        if (!(error instanceof PreconditionFailedError) || request.expectedVersion !== undefined) throw error;
        // The client set no precondition, so a 412 would name one it never sent.
        if (attempt >= WRITE_ATTEMPTS) throw new ConflictError("The record kept changing during the write: try again");
        await retryPause(attempt);
      }
    }
  }

  /**
   * Full replace of the client fields. What clients cannot write (behavior state, `__` fields,
   * createdAt, server-set foreign keys) is carried over from the stored record.
   */
  async update(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, input: unknown, request: WriteRequest = {}): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const body = requireObject(input);
    assertSameKey(info, key, body);
    const fields = {
      ...this.clientFields(info, body),
      ...pick(
        key,
        info.keyFields.filter((f) => !info.serverFields.has(f)),
      ),
    };
    this.deps.validation().assert(info.inputSchema, fields);
    const now = this.now();
    const produce = (stored: Item): Item => {
      const kept = Object.fromEntries(
        Object.entries(stored).filter(([f]) => f.startsWith("__") || info.behaviors.includes(f) || info.serverFields.has(f) || info.ownedFields.has(f)),
      );
      return { ...kept, ...fields, ...key, updatedAt: now };
    };
    const written = await this.decidedWrite(
      ctx,
      info,
      key,
      request,
      (stored, guard) => this.deps.repository(info).replace(key, produce(stored), guard),
      produce,
    );
    await this.emit(info, "Updated", key, written, ctx);
    return this.versioned(ctx, info, written);
  }

  /**
   * Writes only the given fields (UpdateItem in DynamoDB), so concurrent patches of different fields
   * all survive: each is conditioned on the fields its permission was decided on, so a concurrent
   * change of those (an owner) makes it read, judge and try again, and a change of others does not.
   * `null` removes an optional field.
   */
  async patch(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, input: unknown, request: WriteRequest = {}): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const body = requireObject(input);
    assertSameKey(info, key, body);
    const fields = omit(this.clientFields(info, body), info.keyFields);
    const removals = Object.keys(fields).filter((f) => fields[f] === null);
    const required = new Set(info.inputSchema.required ?? []);
    const errors = removals.flatMap((f) =>
      !(f in info.patchSchema.properties)
        ? [{ path: `/${f}`, message: "is not an allowed field" }]
        : required.has(f)
          ? [{ path: `/${f}`, message: "is required and cannot be removed" }]
          : [],
    );
    if (errors.length > 0) throw new ValidationError(errors);
    const changes = omit(fields, removals);
    this.deps.validation().assert(info.patchSchema, changes);
    const set = { ...changes, updatedAt: this.now() };
    const produce = (stored: Item): Item => omit({ ...stored, ...set }, removals);
    const written = await this.decidedWrite(
      ctx,
      info,
      key,
      request,
      (stored, guard) => {
        // The whole record this patch produces must hold, not only the fields it names: a record
        // stored under an older schema (served upgraded) or before a field was narrowed.
        const whole = produce(stored);
        this.assertWhole(ctx, info, stored, whole);
        // A record served upgraded is stored whole and current-shaped, on the version it was read at.
        return wasUpgraded(stored)
          ? this.deps.repository(info).replace(key, whole, { expectedVersion: versionOf(stored) })
          : this.deps.repository(info).patch(key, set, removals, guard);
      },
      produce,
      "fields",
    );
    await this.emit(info, "Patched", key, written, ctx);
    return this.versioned(ctx, info, written);
  }

  /**
   * The whole record a patch produces against the client schema. A stored field this caller may not
   * read (`fieldReaders`) is not named: the refusal must not tell what a hidden field holds.
   */
  private assertWhole(ctx: Context, info: ModelInfo, stored: Item, whole: Item): void {
    try {
      this.deps.validation().assert(info.inputSchema, pick(whole, Object.keys(info.inputSchema.properties)), "The record this write produces is invalid");
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const hidden = (path: string): boolean => {
        const reader = info.cls.fieldReaders[path.split("/")[1] ?? ""];
        return reader !== undefined && !reader(ctx, stored);
      };
      if (!error.errors.some((e) => hidden(e.path))) throw error;
      const shown = error.errors.filter((e) => !hidden(e.path));
      throw new ValidationError([...shown, { path: "/", message: "the stored record holds a value the current schema refuses" }], error.message);
    }
  }

  async delete(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, request: WriteRequest = {}): Promise<void> {
    const key = parseKey(info, rawKey);
    const removed = await this.decidedWrite(ctx, info, key, request, (_stored, guard) => this.deps.repository(info).delete(key, guard));
    await this.emit(info, "Deleted", key, removed, ctx);
  }

  /**
   * `readableParent`: the record these are the children of, already shown to this caller (a
   * GraphQL `contains` field resolves on a record the caller read), so a child's `read` rule on it
   * holds without reading it again.
   */
  async query(ctx: Context, info: ModelInfo, args: ListArguments, readableParent?: { info: ModelInfo; key: string | number }): Promise<ListResult> {
    const permissions = this.permissions(ctx);
    if (readableParent) permissions.vouchReadable(readableParent.info, [readableParent.key]);
    return this.deps.listing().list(ctx, info, this.deps.repository(info), this.deps.sealer(), permissions, args);
  }

  /**
   * The first page of `args` scoped to each of `scopes` (child attributes equal to a parent's key):
   * the children of many parents read together by `field`, each answer (or error) the one `query`
   * gives for its parent. `readableParents`: the model of those parents, all already shown to this
   * caller (as in `query`); only a one-field key is vouched for, as only such parents have child rules.
   */
  async queryEach(
    ctx: Context,
    info: ModelInfo,
    field: string,
    scopes: Record<string, string | number>[],
    args: ListArguments,
    readableParents?: ModelInfo,
  ): Promise<PromiseSettledResult<ListResult>[]> {
    const permissions = this.permissions(ctx);
    if (readableParents?.keyFields.length === 1)
      permissions.vouchReadable(
        readableParents,
        scopes.flatMap((s) => Object.values(s)),
      );
    return this.deps.listing().listEach(ctx, info, this.deps.repository(info), this.deps.sealer(), permissions, field, scopes, args);
  }

  /** The application's model of a class; a class it does not register is refused by name. */
  private modelOf(cls: ModelClass): ModelInfo {
    if (!this.deps.model) return describeModel(cls);
    const info = this.deps.model(cls.name);
    if (!info) throw new Error(`${cls.name} is not a model of this application`);
    return info;
  }

  async invoke(ctx: Context, info: ModelInfo, operation: string, rawKey: Record<string, unknown> | undefined, input: unknown): Promise<unknown> {
    const scope = { domain: this, resolve: (cls: ModelClass) => this.modelOf(cls) };
    return invokeModelOperation(scope, this.deps.validation(), ctx, info, this.deps.repository(info), this.permissions(ctx), operation, rawKey, input);
  }

  async invokeService(ctx: Context, entry: ServiceEntry, operation: string, input: unknown): Promise<unknown> {
    const scope = { domain: this, resolve: (cls: ModelClass) => this.modelOf(cls) };
    return invokeServiceOperation(scope, this.deps.validation(), ctx, entry.service, operation, input, entry.operations);
  }

  /**
   * Records whose `field` (a partition key of the table or an index) is one of `values`, readable by
   * the caller, in output form: the join rows of many parents in a constant number of reads.
   */
  async loadByField(ctx: Context, info: ModelInfo, field: string, values: (string | number)[], options: { parentsRead?: boolean } = {}): Promise<Item[]> {
    if (values.length === 0) return [];
    const items = await this.deps.repository(info).findByField(field, values);
    const permissions = this.permissions(ctx);
    // `parentsRead`: the values are keys of the records `field` points to, which the caller has
    // just read through this layer (the parents of a relation being resolved): not read twice.
    const relation = Object.values(info.relations).find((r) => r.kind === "belongsTo" && r.field === field);
    if (options.parentsRead && relation) permissions.vouchReadable(this.deps.model?.(relation.target().name) ?? describeModel(relation.target()), values);
    return (await permissions.readable(info, items)).map((item) => toOutput(ctx, info, item));
  }

  /**
   * The caller's view of a record they did not ask for by key (a changed record delivered to a
   * subscriber): undefined when they may not read it, else the redacted output.
   */
  async view(ctx: Context, info: ModelInfo, item: Item): Promise<Item | undefined> {
    // A stream image is the stored row: served upgraded, as a read is.
    const current = info.upgrade.upgrade(item);
    return (await this.permissions(ctx).decide(info, current, "read")) === true ? toOutput(ctx, info, current) : undefined;
  }

  /**
   * The key a subscriber may watch. Whether the record exists or is readable is not asked: both
   * would answer differently for a hidden record and a missing one. Every delivery is checked instead.
   */
  watchableKey(info: ModelInfo, rawKey: Record<string, unknown>): KeyValues {
    return parseKey(info, rawKey);
  }

  /**
   * A filter (query-language expression, no ORDER BY/LIMIT) checked against the model's fields and
   * against what the caller may read.
   */
  checkedFilter(ctx: Context, info: ModelInfo, text: string): Expression | undefined {
    return this.deps.listing().filter(ctx, info, text);
  }

  /** Loads records by key for relations, keeping only those the caller may read. */
  async load(ctx: Context, info: ModelInfo, keys: KeyValues[]): Promise<Item[]> {
    if (keys.length === 0) return [];
    const items = await this.deps.repository(info).getMany(keys);
    return (await this.permissions(ctx).readable(info, items)).map((item) => toOutput(ctx, info, item));
  }
}
