import type { Context } from "./context.ts";
import { NotFoundError, PermissionError, UnauthenticatedError, ValidationError } from "./errors.ts";
import type { Action, Decision, Model } from "./model.ts";
import type { ModelInfo } from "./model-info.ts";
import { isPlainObject, omit, stripServerOnly } from "./sanitize.ts";
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

/** The persisted form of an instance: behaviors replaced by their stored state. */
export function toItem(info: ModelInfo, instance: Model): Item {
  const item: Item = { ...(instance as unknown as Item) };
  for (const name of info.behaviors) {
    const behavior = item[name] as { toStored?: () => Record<string, unknown> } | undefined;
    if (behavior?.toStored) item[name] = behavior.toStored();
  }
  return item;
}

/** What a caller sees: no `__` data at any depth, no behavior state, then the model's own redaction. */
export function toOutput(ctx: Context, info: ModelInfo, item: Item): Item {
  const visible = stripServerOnly(omit(item, info.behaviors));
  return instantiate(info, item).redact(ctx, visible);
}

export function versionOf(item: Item): number {
  const version = item[VERSION_FIELD];
  return typeof version === "number" ? version : 0;
}

export function decide(info: ModelInfo, item: Item, ctx: Context, action: Action): Decision {
  return instantiate(info, item).canAct(ctx, action);
}

/** Deny by default; an anonymous caller is told to authenticate rather than that it is forbidden. */
export function authorize(decision: Decision, ctx: Context): void {
  if (decision === true) return;
  if (ctx.getCurrentUserId() === undefined) throw new UnauthenticatedError();
  throw new PermissionError();
}

/**
 * A record the caller may not read does not exist for them: 404, so that existence does not leak
 * (a draft's slug, a private profile). Writes on a readable record that are refused are 403.
 */
export function assertReadable(info: ModelInfo, item: Item | undefined, ctx: Context): Item {
  if (!item || decide(info, item, ctx, "read") !== true) throw new NotFoundError(`${info.name} not found`);
  return item;
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
  if (errors.length > 0) throw new ValidationError(errors, "Invalid key");
  return key;
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
