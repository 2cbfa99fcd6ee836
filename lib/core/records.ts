import type { Context } from "./context.ts";
import { ValidationError } from "./errors.ts";
import { Model, type FieldReader } from "./model.ts";
import type { ModelInfo } from "./model-info.ts";
import { isPlainObject, stripServerOnly } from "./sanitize.ts";
import { VERSION_FIELD } from "./schema.ts";

export type Item = Record<string, unknown>;
export type KeyValues = Record<string, string | number>;

/** A record as a model instance: data fields assigned, behavior attributes as behavior objects. */
export function instantiate(info: ModelInfo, item: Item): Model {
  const instance = new info.cls();
  Object.assign(instance, item);
  for (const name of info.behaviors) {
    const Behavior = info.cls.behaviors[name];
    if (!Behavior) continue;
    const state = isPlainObject(item[name]) ? (item[name] as Record<string, unknown>) : {};
    (instance as unknown as Record<string, unknown>)[name] = new Behavior({ ...state });
  }
  return instance;
}

/** How one model's records are shown, worked out once per model rather than per record. */
interface OutputPlan {
  /** Behavior attributes: their stored state is never shown. */
  behaviors: ReadonlySet<string>;
  /** The model's `fieldReaders`, asked per record and caller. */
  readers: readonly (readonly [string, FieldReader])[];
  /** Whether the model overrides `redact`: only then is the record instantiated to call it. */
  redacts: boolean;
}

const plans = new WeakMap<ModelInfo, OutputPlan>();

function outputPlan(info: ModelInfo): OutputPlan {
  let plan = plans.get(info);
  if (!plan) {
    plan = {
      behaviors: new Set(info.behaviors),
      readers: Object.entries(info.cls.fieldReaders),
      redacts: info.cls.prototype.redact !== Model.prototype.redact,
    };
    plans.set(info, plan);
  }
  return plan;
}

/**
 * What a caller sees: no `__` data at any depth, no behavior state, no field `fieldReaders` hides
 * from this caller, then the model's own `redact`.
 */
export function toOutput(ctx: Context, info: ModelInfo, item: Item): Item {
  const plan = outputPlan(info);
  let hidden: string[] | undefined;
  for (const [field, reader] of plan.readers) if (!reader(ctx, item)) (hidden ??= []).push(field);
  // One copy per record, the only one a list makes: nested values are copied only where they can
  // hold `__` keys (objects and arrays).
  const visible: Item = {};
  for (const key of Object.keys(item)) {
    if (key.startsWith("__") || plan.behaviors.has(key) || hidden?.includes(key)) continue;
    const value = item[key];
    visible[key] = value !== null && typeof value === "object" ? stripServerOnly(value) : value;
  }
  return plan.redacts ? instantiate(info, item).redact(ctx, visible) : visible;
}

export function versionOf(item: Item): number {
  const version = item[VERSION_FIELD];
  return typeof version === "number" ? version : 0;
}

/**
 * Turns raw key values (URL segments are strings) into typed key values, checking every key field
 * is present and of its schema type.
 */
export function parseKey(info: ModelInfo, raw: Record<string, unknown>): KeyValues {
  const key: KeyValues = {};
  const errors: { path: string; message: string }[] = [];
  for (const field of info.keyFields) {
    const value = raw[field];
    const type = info.outputSchema.properties[field]?.type;
    const numeric = type === "number" || type === "integer";
    if (numeric && typeof value === "number") key[field] = value;
    else if (numeric && typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) key[field] = Number(value);
    else if (!numeric && typeof value === "string" && value !== "") key[field] = value;
    else errors.push({ path: `/${field}`, message: numeric ? "must be a number" : "must be a non-empty string" });
  }
  if (errors.length === 0) errors.push(...keySizeErrors(info, key, [info.table.key]));
  if (errors.length > 0) throw new ValidationError(errors, "Invalid key");
  return key;
}

/** DynamoDB's limits on a key value, in UTF-8 bytes: 2048 for a partition key, 1024 for a sort key. */
export const PARTITION_KEY_BYTES = 2048;
export const SORT_KEY_BYTES = 1024;

function keySizeErrors(info: ModelInfo, record: Item, shapes: readonly { hash: string; range?: string }[]): { path: string; message: string }[] {
  let errors: Map<string, string> | undefined;
  for (const shape of shapes) {
    errors = keyTooLong(info, record, shape.hash, PARTITION_KEY_BYTES, "partition", errors);
    if (shape.range !== undefined) errors = keyTooLong(info, record, shape.range, SORT_KEY_BYTES, "sort", errors);
  }
  return errors ? [...errors].map(([field, message]) => ({ path: `/${field}`, message })) : [];
}

/** `errors`, with `field`'s own when its value is longer than `max` bytes (the first one found stands). */
function keyTooLong(
  info: ModelInfo,
  record: Item,
  field: string,
  max: number,
  role: string,
  errors: Map<string, string> | undefined,
): Map<string, string> | undefined {
  const value = record[field];
  // A UTF-16 unit is at most 3 UTF-8 bytes: a short key needs no count (every read parses a key).
  if (typeof value !== "string" || value.length * 3 <= max || errors?.has(field)) return errors;
  const bytes = Buffer.byteLength(value);
  if (bytes <= max) return errors;
  return (errors ?? new Map<string, string>()).set(field, `is ${bytes} bytes long; as a ${role} key of ${info.name} it may hold at most ${max} bytes (UTF-8)`);
}

/**
 * A record about to be written: its table key and every index key it carries must fit DynamoDB's
 * key sizes, checked here so that no write reaches the store to be refused there.
 */
export function assertKeySizes(info: ModelInfo, record: Item): void {
  const errors = keySizeErrors(info, record, [info.table.key, ...info.table.indexes]);
  if (errors.length > 0) throw new ValidationError(errors);
}

/** Input key fields, when present, must name the record being written: a key never changes. */
export function assertSameKey(info: ModelInfo, key: KeyValues, input: Item): void {
  const errors = info.keyFields
    .filter((f) => f in input && String(input[f]) !== String(key[f]))
    .map((f) => ({ path: `/${f}`, message: "must equal the key of the record being written (a key cannot change)" }));
  if (errors.length > 0) throw new ValidationError(errors);
}

export function requireObject(input: unknown, path = "/"): Item {
  if (!isPlainObject(input)) throw new ValidationError([{ path, message: "must be a JSON object" }]);
  return input;
}
