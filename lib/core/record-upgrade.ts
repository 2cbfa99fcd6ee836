import { canonicalJson } from "./canonical-json.ts";
import type { ModelClass, UpgradeStep } from "./model.ts";
import type { ObjectSchema } from "./schema.ts";
import { VERSION_FIELD } from "./schema.ts";

type Item = Record<string, unknown>;

/**
 * The model version a record was written under. Absent means 1: records written before the model
 * declared a version are version 1. Written only by models past version 1.
 */
export const MODEL_VERSION_FIELD = "__modelVersion";

/**
 * How a model's stored records become current (docs/model-versions.md): `upgrades[n]` for each version from the record's to the model's, then the schema's
 * top-level `default`s for fields that are missing or null.
 */
export interface RecordUpgrade {
  model: string;
  version: number;
  /** Top-level fields with a JSON Schema `default`, and that default. */
  defaults: Readonly<Record<string, unknown>>;
  /** Whether any stored record can be served differently from how it is stored. */
  active: boolean;
  /** Whether the model has upgrade steps (a filter is then also checked on the served record). */
  stepped: boolean;
  /** Whether this stored record is not current: an older version, or a defaulted field absent. */
  needsUpgrade(item: Item): boolean;
  /** The record as current code reads it: `item` itself when it is current. */
  upgrade(item: Item): Item;
  /** A record about to be written, current-shaped: defaults filled in, the model version set. */
  stamp(item: Item): Item;
}

/** Records served upgraded (the objects `upgrade` made): a write to one rewrites the whole record. */
const upgradedViews = new WeakSet<object>();

/** Whether this record was served upgraded from an older stored shape (then a write stores it whole). */
export function wasUpgraded(item: Item): boolean {
  return upgradedViews.has(item);
}

export function storedModelVersion(item: Item): number {
  const version = item[MODEL_VERSION_FIELD];
  return typeof version === "number" && Number.isInteger(version) && version >= 1 ? version : 1;
}

/** Top-level fields of the schema that declare a `default`, key fields aside (a key is never absent). */
export function schemaDefaults(schema: ObjectSchema, keyFields: readonly string[]): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const [field, property] of Object.entries(schema.properties)) {
    if (property.default !== undefined && !keyFields.includes(field)) defaults[field] = property.default;
  }
  return defaults;
}

/**
 * The model's version and steps, refused at app construction when inconsistent: a version that is
 * not a whole number from 1, a missing step, a step that is not a function or that no record needs.
 */
export function checkModelVersions(cls: ModelClass): void {
  const version = cls.version ?? 1;
  if (!Number.isInteger(version) || version < 1) throw new Error(`${cls.name}.version must be a whole number from 1, got ${String(version)}`);
  const steps = cls.upgrades ?? {};
  for (let n = 1; n < version; n++) {
    if (typeof steps[n] !== "function")
      throw new Error(`${cls.name}: version ${version} needs an upgrade step from every earlier version; upgrades[${n}] (version ${n} -> ${n + 1}) is missing`);
  }
  for (const n of Object.keys(steps)) {
    const from = Number(n);
    if (!Number.isInteger(from) || from < 1 || from >= version)
      throw new Error(`${cls.name}: upgrades[${n}] upgrades no record: steps go from 1 to version - 1 (${version - 1}); raise ${cls.name}.version to use it`);
  }
}

const absent = (value: unknown): boolean => value === undefined || value === null;

export function recordUpgrade(cls: ModelClass, keyFields: readonly string[]): RecordUpgrade {
  checkModelVersions(cls);
  const version = cls.version ?? 1;
  const steps: Readonly<Record<number, UpgradeStep>> = cls.upgrades ?? {};
  const defaults = schemaDefaults(cls.schema, keyFields);
  const defaulted = Object.keys(defaults);
  const carried = [...keyFields, VERSION_FIELD];

  const needsUpgrade = (item: Item): boolean => (version > 1 && storedModelVersion(item) < version) || defaulted.some((field) => absent(item[field]));

  const withDefaults = (record: Item): Item => {
    let out = record;
    for (const field of defaulted) {
      if (!absent(out[field])) continue;
      if (out === record) out = { ...record };
      // A copy each time: one record's default must never be another's (an object default mutated).
      out[field] = structuredClone(defaults[field]);
    }
    return out;
  };

  const upgrade = (item: Item): Item => {
    if (!needsUpgrade(item)) return item;
    let record: Item = item;
    for (let n = storedModelVersion(item); n < version; n++) {
      const step = steps[n] as UpgradeStep;
      const next = step(structuredClone(record));
      // The key and the concurrency version are the stored record's, whatever a step returns.
      record = { ...next, ...Object.fromEntries(carried.filter((f) => f in item).map((f) => [f, item[f]])) };
    }
    const current = withDefaults(record === item ? { ...item } : record);
    if (version > 1) current[MODEL_VERSION_FIELD] = version;
    upgradedViews.add(current);
    return current;
  };

  const stamp = (item: Item): Item => {
    const current = withDefaults(item);
    return version > 1 ? { ...current, [MODEL_VERSION_FIELD]: version } : current;
  };

  return {
    model: cls.name,
    version,
    defaults,
    active: version > 1 || defaulted.length > 0,
    stepped: version > 1,
    needsUpgrade,
    upgrade,
    stamp,
  };
}

/**
 * Whether two stored states of one record are served alike: what `webda db migrate` writes (the
 * same `__version`, the same record once upgraded). A stream's MODIFY between them changes nothing
 * a subscriber can see, so it is no event.
 */
export function servedAlike(upgrade: RecordUpgrade, before: Item, after: Item): boolean {
  if (!upgrade.active || before[VERSION_FIELD] !== after[VERSION_FIELD]) return false;
  return canonicalJson(upgrade.upgrade(before)) === canonicalJson(upgrade.upgrade(after));
}
