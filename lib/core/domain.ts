import { randomUUID } from "node:crypto";
import type { Repository } from "../store/repository.ts";
import type { Context } from "./context.ts";
import type { ContinuationSealer } from "./continuation.ts";
import { ConflictError, PreconditionFailedError, ValidationError } from "./errors.ts";
import type { EventBus, LifecycleKind } from "./events.ts";
import { invokeModelOperation, invokeServiceOperation } from "./invoke.ts";
import { listRecords, type ListArguments, type ListResult } from "./list.ts";
import { log, errorFields } from "./log.ts";
import type { ModelInfo } from "./model-info.ts";
import type { ServiceEntry } from "./application.ts";
import {
  assertReadable, assertSameKey, authorize, decide, parseKey, requireObject, toOutput, versionOf,
  type Item, type KeyValues,
} from "./records.ts";
import { checkExpression, parseFilter, type Expression } from "../query/index.ts";
import { omit, pick, stripServerOnly } from "./sanitize.ts";
import { assertValid } from "./validation.ts";

export interface DomainDeps {
  repository(info: ModelInfo): Repository;
  sealer(): ContinuationSealer;
  events: EventBus;
  now?: () => Date;
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
 * A PUT without If-Match re-reads and retries when another write lands first. Waits are random
 * (full jitter, capped) so racing writers spread out instead of colliding again in lockstep; 20
 * concurrent PUTs on one record all land (test/reliability/concurrency.test.ts).
 */
const UPDATE_ATTEMPTS = 12;
const retryPause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 5 * 2 ** attempt)));

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

  async create(ctx: Context, info: ModelInfo, input: unknown): Promise<Versioned> {
    const fields = this.clientFields(info, requireObject(input));
    const now = this.now();
    const candidate: Item = { ...fields, createdAt: now, updatedAt: now };
    if (info.generatedKey) candidate.uuid = info.cls.identity ? ctx.getCurrentUserId() : randomUUID();
    for (const relation of Object.values(info.relations)) {
      if (relation.kind === "belongsTo" && relation.fromCurrentUser) candidate[relation.field] = ctx.getCurrentUserId();
    }
    authorize(decide(info, candidate, ctx, "create"), ctx);
    assertValid(info.inputSchema, fields);
    const stored = await this.deps.repository(info).create(candidate);
    await this.emit(info, "Created", parseKey(info, stored), stored, ctx);
    return this.versioned(ctx, info, stored);
  }

  async get(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const item = assertReadable(info, await this.deps.repository(info).get(key), ctx);
    return this.versioned(ctx, info, item);
  }

  /**
   * Full replace of the client fields. What clients cannot write (behavior state, `__` fields,
   * createdAt, server-set foreign keys) is carried over from the stored record.
   */
  async update(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, input: unknown, request: WriteRequest = {}): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const body = requireObject(input);
    assertSameKey(info, key, body);
    const fields = { ...this.clientFields(info, body), ...pick(key, info.keyFields.filter((f) => !info.serverFields.has(f))) };
    const repository = this.deps.repository(info);
    for (let attempt = 1; ; attempt++) {
      const stored = assertReadable(info, await repository.get(key), ctx);
      authorize(decide(info, stored, ctx, "update"), ctx);
      assertValid(info.inputSchema, fields);
      const kept = Object.fromEntries(
        Object.entries(stored).filter(([f]) => f.startsWith("__") || info.behaviors.includes(f) || info.serverFields.has(f)),
      );
      const next: Item = { ...kept, ...fields, ...key, updatedAt: this.now() };
      const expectedVersion = request.expectedVersion ?? versionOf(stored);
      try {
        const written = await repository.replace(key, next, { expectedVersion });
        await this.emit(info, "Updated", key, written, ctx);
        return this.versioned(ctx, info, written);
      } catch (error) {
        // Without If-Match, a concurrent write just means: re-read and apply on the new base.
        if (!(error instanceof PreconditionFailedError) || request.expectedVersion !== undefined) throw error;
        // The client set no precondition, so a 412 would name one it never sent.
        if (attempt >= UPDATE_ATTEMPTS) throw new ConflictError("The record kept changing during the update: try again");
        await retryPause(attempt);
      }
    }
  }

  /**
   * Writes only the given fields (UpdateItem in DynamoDB), so concurrent patches of different fields
   * all survive. `null` removes an optional field.
   */
  async patch(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, input: unknown, request: WriteRequest = {}): Promise<Versioned> {
    const key = parseKey(info, rawKey);
    const body = requireObject(input);
    assertSameKey(info, key, body);
    const fields = omit(this.clientFields(info, body), info.keyFields);
    const removals = Object.keys(fields).filter((f) => fields[f] === null);
    const required = new Set(info.inputSchema.required ?? []);
    const errors = removals.flatMap((f) =>
      !(f in info.patchSchema.properties) ? [{ path: `/${f}`, message: "is not an allowed field" }]
      : required.has(f) ? [{ path: `/${f}`, message: "is required and cannot be removed" }] : [],
    );
    if (errors.length > 0) throw new ValidationError(errors);
    const changes = omit(fields, removals);
    assertValid(info.patchSchema, changes);
    const repository = this.deps.repository(info);
    const stored = assertReadable(info, await repository.get(key), ctx);
    authorize(decide(info, stored, ctx, "update"), ctx);
    const written = await repository.patch(key, { ...changes, updatedAt: this.now() }, removals, request);
    await this.emit(info, "Patched", key, written, ctx);
    return this.versioned(ctx, info, written);
  }

  async delete(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>, request: WriteRequest = {}): Promise<void> {
    const key = parseKey(info, rawKey);
    const repository = this.deps.repository(info);
    const stored = assertReadable(info, await repository.get(key), ctx);
    authorize(decide(info, stored, ctx, "delete"), ctx);
    const removed = await repository.delete(key, request);
    await this.emit(info, "Deleted", key, removed, ctx);
  }

  async query(ctx: Context, info: ModelInfo, args: ListArguments): Promise<ListResult> {
    return listRecords(ctx, info, this.deps.repository(info), this.deps.sealer(), args);
  }

  async invoke(ctx: Context, info: ModelInfo, operation: string, rawKey: Record<string, unknown> | undefined, input: unknown): Promise<unknown> {
    return invokeModelOperation(ctx, info, this.deps.repository(info), operation, rawKey, input);
  }

  async invokeService(ctx: Context, entry: ServiceEntry, operation: string, input: unknown): Promise<unknown> {
    return invokeServiceOperation(ctx, entry.service, operation, input, entry.operations);
  }

  /**
   * Records whose `field` (a partition key of the table or an index) is one of `values`, readable by
   * the caller, in output form: the join rows of many parents in a constant number of reads.
   */
  async loadByField(ctx: Context, info: ModelInfo, field: string, values: (string | number)[]): Promise<Item[]> {
    if (values.length === 0) return [];
    const items = await this.deps.repository(info).findByField(field, values);
    return items.filter((item) => decide(info, item, ctx, "read") === true).map((item) => toOutput(ctx, info, item));
  }

  /**
   * The caller's view of a record they did not ask for by key (a changed record delivered to a
   * subscriber): undefined when they may not read it, else the redacted output.
   */
  view(ctx: Context, info: ModelInfo, item: Item): Item | undefined {
    return decide(info, item, ctx, "read") === true ? toOutput(ctx, info, item) : undefined;
  }

  /**
   * May the caller watch this key? A record that does not exist yet may be watched (existence is
   * no secret: a create on a taken key says so); an existing one only if the caller may read it.
   */
  async assertWatchable(ctx: Context, info: ModelInfo, rawKey: Record<string, unknown>): Promise<KeyValues> {
    const key = parseKey(info, rawKey);
    const stored = await this.deps.repository(info).get(key);
    if (stored) authorize(decide(info, stored, ctx, "read"), ctx);
    return key;
  }

  /** A filter (query-language expression, no ORDER BY/LIMIT) checked against the model's fields. */
  checkedFilter(info: ModelInfo, text: string): Expression | undefined {
    const expression = parseFilter(text);
    if (expression) checkExpression(expression, info.outputSchema);
    return expression;
  }

  /** Loads records by key for relations, keeping only those the caller may read. */
  async load(ctx: Context, info: ModelInfo, keys: KeyValues[]): Promise<Item[]> {
    if (keys.length === 0) return [];
    const items = await this.deps.repository(info).getMany(keys);
    return items.filter((item) => decide(info, item, ctx, "read") === true).map((item) => toOutput(ctx, info, item));
  }
}
