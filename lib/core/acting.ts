import type { Context } from "./context.ts";
import type { Domain, WriteRequest } from "./domain.ts";
import type { ListArguments } from "./list.ts";
import type { Model, ModelClass } from "./model.ts";
import type { ModelInfo } from "./model-info.ts";
import type { Item, KeyValues } from "./records.ts";

/** A model's record fields: its instance type without methods (the policy, the operations). */
export type RecordOf<M> = {
  [K in keyof M as M[K] extends (...args: never[]) => unknown ? never : K]: M[K];
} & Item;

/** Fields a patch writes: `null` removes an optional one. */
export type PatchOf<M> = { [K in keyof RecordOf<M>]?: RecordOf<M>[K] | null };

/**
 * One model's records as the caller acts on them: every call is the domain's (the caller's
 * permissions, validation, server-owned fields, events, optimistic concurrency), so an operation
 * can do nothing its caller could not do through REST or GraphQL, and a refusal is the caller's.
 */
export interface ModelRecords<M> {
  /** The record, as the caller sees it: a 404 when it is missing or the caller may not read it. */
  get(key: KeyValues): Promise<RecordOf<M>>;
  /** The records of these keys the caller may read, in one batched read; others are left out. */
  find(keys: KeyValues[]): Promise<RecordOf<M>[]>;
  /** A page of the records the caller may read (`q` is the query language, as REST's). */
  list(args?: ListArguments): Promise<{ results: RecordOf<M>[]; continuationToken: string | null }>;
  create(input: Partial<RecordOf<M>>): Promise<RecordOf<M>>;
  patch(key: KeyValues, fields: PatchOf<M>, request?: WriteRequest): Promise<RecordOf<M>>;
  update(key: KeyValues, body: Partial<RecordOf<M>>, request?: WriteRequest): Promise<RecordOf<M>>;
  delete(key: KeyValues, request?: WriteRequest): Promise<void>;
}

/** Any model of the application, as the caller. */
export type RecordsOf = <M extends Model>(cls: ModelClass & (new () => M)) => ModelRecords<M>;

/** What every operation receives besides its parameters (a service's too). */
export interface OperationCall {
  ctx: Context;
  /** A model's records, as the caller: `records(Comment).create({...})`. */
  records: RecordsOf;
}

/**
 * The record an instance operation runs on, as its caller acts on it. `this` in the method is the
 * record as stored when the operation was allowed; `self.patch` and `self.update` write through the
 * domain and bring `this` up to date with what the caller may see of the result.
 */
export interface SelfRecord<M> {
  readonly key: KeyValues;
  /** The version the operation was allowed on: `patch(f, { expectedVersion: self.version })` writes only on it. */
  readonly version: number;
  /** The record the belongs-to relation `relation` names, as the caller sees it; undefined when missing or hidden. */
  related<T extends Model = Model>(relation: string): Promise<RecordOf<T> | undefined>;
  patch(fields: PatchOf<M>, request?: WriteRequest): Promise<RecordOf<M>>;
  update(body: Partial<RecordOf<M>>, request?: WriteRequest): Promise<RecordOf<M>>;
  delete(request?: WriteRequest): Promise<void>;
}

/** What an instance operation receives: the call, and its record bound to the caller. */
export interface InstanceCall<M extends Model = Model> extends OperationCall {
  self: SelfRecord<M>;
}

/** The application's model of a class: a class the application does not register has no table. */
export type ModelResolver = (cls: ModelClass) => ModelInfo;

export function recordsOf(domain: Domain, ctx: Context, resolve: ModelResolver): RecordsOf {
  return <M extends Model>(cls: ModelClass & (new () => M)): ModelRecords<M> => {
    const info = resolve(cls);
    const as = (item: Item) => item as RecordOf<M>;
    return {
      get: async (key) => as((await domain.get(ctx, info, key)).data),
      find: async (keys) => (await domain.load(ctx, info, keys)).map(as),
      list: async (args = {}) => {
        const page = await domain.query(ctx, info, args);
        return { results: page.results.map(as), continuationToken: page.continuationToken };
      },
      create: async (input) => as((await domain.create(ctx, info, input)).data),
      patch: async (key, fields, request) => as((await domain.patch(ctx, info, key, fields, request)).data),
      update: async (key, body, request) => as((await domain.update(ctx, info, key, body, request)).data),
      delete: (key, request) => domain.delete(ctx, info, key, request),
    };
  };
}

export function selfRecord<M extends Model>(
  domain: Domain,
  ctx: Context,
  info: ModelInfo,
  resolve: ModelResolver,
  instance: M,
  key: KeyValues,
  version: number,
): SelfRecord<M> {
  // What the caller may see of the written record replaces the instance's fields; a field the
  // write removed goes (the rest, hidden from the caller, stays as it was read).
  const refresh = (data: Item, removed: string[] = []): RecordOf<M> => {
    const target = instance as unknown as Item;
    for (const field of removed) delete target[field];
    Object.assign(target, data);
    return data as RecordOf<M>;
  };
  return {
    key,
    version,
    related: async <T extends Model>(name: string): Promise<RecordOf<T> | undefined> => {
      const relation = info.relations[name];
      if (relation?.kind !== "belongsTo") throw new Error(`${info.name} has no belongs-to relation '${name}'`);
      const value = (instance as unknown as Item)[relation.field];
      if (typeof value !== "string" && typeof value !== "number") return undefined;
      const target = resolve(relation.target());
      if (target.keyFields.length !== 1) throw new Error(`${info.name}.${name}: ${target.name} has a composite key`);
      const [found] = await domain.load(ctx, target, [{ [target.keyFields[0] as string]: value }]);
      return found as RecordOf<T> | undefined;
    },
    patch: async (fields, request) => {
      const { data } = await domain.patch(ctx, info, key, fields, request);
      return refresh(
        data,
        Object.keys(fields).filter((f) => fields[f as keyof typeof fields] === null),
      );
    },
    update: async (body, request) => refresh((await domain.update(ctx, info, key, body, request)).data),
    delete: (request) => domain.delete(ctx, info, key, request),
  };
}
