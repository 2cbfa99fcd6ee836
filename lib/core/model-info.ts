import type { ModelClass, IndexDeclaration, ListLimits } from "./model.ts";
import { operationsOf, type OperationDefinition } from "./operation.ts";
import { recordUpgrade, type RecordUpgrade } from "./record-upgrade.ts";
import { normalizeRelations, type Relation } from "./relations.ts";
import { TIMESTAMP_FIELDS, type JsonSchema, type ObjectSchema } from "./schema.ts";

export interface KeyShape {
  hash: string;
  range?: string;
}

export interface TableShape {
  key: KeyShape;
  indexes: (IndexDeclaration & KeyShape)[];
}

/**
 * Everything the framework derives from a model class, computed once per class. Faces and stores
 * read this instead of re-deriving field lists (one derivation, no drift).
 */
export interface ModelInfo {
  cls: ModelClass;
  name: string;
  plural: string;
  keyFields: readonly string[];
  /** The key is a server-generated UUID (the default key). */
  generatedKey: boolean;
  schema: ObjectSchema;
  relations: Record<string, Relation>;
  behaviors: readonly string[];
  operations: OperationDefinition[];
  /** Fields the server owns: timestamps, a generated key, foreign keys taken from the current user. */
  serverFields: ReadonlySet<string>;
  /** Fields some callers may not see (`fieldReaders`): never required in the output schema. */
  restrictedFields: readonly string[];
  /**
   * Fields of the schema only the server writes (`static serverOwned`), e.g. an identity's verified
   * address: out of the input schemas, refused (400 naming them) when a client sends them, and
   * read like any other field.
   */
  ownedFields: ReadonlySet<string>;
  /** What the server may write into the owned fields (the create's `owned` values), checked like input. */
  ownedSchema: ObjectSchema;
  /**
   * Schema of a stored record as any caller may read it: client fields plus server-managed ones;
   * required are the fields every caller always receives.
   */
  outputSchema: ObjectSchema;
  /** Create / full replace input: the client fields, nothing else. */
  inputSchema: ObjectSchema;
  /** Patch input: the same fields, none required. */
  patchSchema: ObjectSchema;
  table: TableShape;
  limits: ListLimits;
  /** How a stored record of an older shape becomes current (model version, upgrade steps, defaults). */
  upgrade: RecordUpgrade;
}

const cache = new WeakMap<ModelClass, ModelInfo>();

export function pluralize(name: string): string {
  const lower = name.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** A model's route segment and table name part (`Post` -> `posts`), without describing the model. */
export function modelPlural(cls: ModelClass): string {
  return cls.plural ?? pluralize(cls.name);
}

export function describeModel(cls: ModelClass): ModelInfo {
  const known = cache.get(cls);
  if (known) return known;
  const keyFields = cls.FRAMEWORK_PRIMARY_KEY;
  if (keyFields.length < 1 || keyFields.length > 2) {
    throw new Error(`${cls.name}: FRAMEWORK_PRIMARY_KEY must name one or two fields (DynamoDB partition and sort key)`);
  }
  const relations = normalizeRelations(cls.relations);
  const generatedKey = keyFields.length === 1 && keyFields[0] === "uuid";
  const currentUserFields = Object.values(relations).flatMap((r) => (r.kind === "belongsTo" && r.fromCurrentUser ? [r.field] : []));
  const serverFields = new Set<string>([...TIMESTAMP_FIELDS, ...currentUserFields, ...(generatedKey ? ["uuid"] : [])]);
  const behaviors = Object.keys(cls.behaviors);
  const ownedFields = new Set<string>(cls.serverOwned);
  for (const field of ownedFields) {
    if (!(field in cls.schema.properties)) throw new Error(`${cls.name}: server-owned field '${field}' is not in the schema`);
    if (keyFields.includes(field)) throw new Error(`${cls.name}: key field '${field}' cannot be server-owned`);
  }

  for (const field of keyFields) {
    if (!(field in cls.schema.properties)) throw new Error(`${cls.name}: key field '${field}' is not in the schema`);
  }

  const clientProperties: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries(cls.schema.properties)) {
    if (serverFields.has(field) || ownedFields.has(field) || behaviors.includes(field) || field.startsWith("__")) continue;
    clientProperties[field] = schema;
  }
  const upgrade = recordUpgrade(cls, keyFields);
  // A defaulted field may be left out of a write (it takes its default) and is always served.
  const defaulted = Object.keys(upgrade.defaults);
  const required = (cls.schema.required ?? []).filter((f) => f in clientProperties && !defaulted.includes(f));
  const inputSchema: ObjectSchema = { type: "object", properties: clientProperties, required, additionalProperties: false };
  const patchSchema: ObjectSchema = { type: "object", properties: clientProperties, additionalProperties: false };

  const ownedSchema: ObjectSchema = {
    type: "object",
    properties: Object.fromEntries([...ownedFields].map((f) => [f, cls.schema.properties[f] as JsonSchema])),
    additionalProperties: false,
  };
  const outputProperties: Record<string, JsonSchema> = { ...clientProperties };
  for (const field of ownedFields) outputProperties[field] = cls.schema.properties[field] as JsonSchema;
  for (const field of keyFields) outputProperties[field] = keySchema(cls, field);
  for (const field of currentUserFields) outputProperties[field] = { type: "string" };
  for (const field of TIMESTAMP_FIELDS) outputProperties[field] = { type: "string", format: "date-time" };
  for (const [name, relation] of Object.entries(relations)) {
    // A sort key the records do not carry would index nothing: refused when the model is described.
    if (relation.kind === "belongsTo" && relation.sortKey !== undefined && !(relation.sortKey in outputProperties))
      throw new Error(`${cls.name}.${name}: sortKey '${relation.sortKey}' is not a field of the model`);
  }
  const restrictedFields = Object.keys(cls.fieldReaders);
  for (const field of restrictedFields) {
    if (!(field in outputProperties)) throw new Error(`${cls.name}: restricted field '${field}' is not a field clients read`);
  }
  // A server-set foreign key is always written on create; a restricted field is absent for some callers.
  const always = [...keyFields, ...(cls.schema.required ?? []), ...defaulted, ...currentUserFields, ...TIMESTAMP_FIELDS];
  const outputSchema: ObjectSchema = {
    type: "object",
    properties: outputProperties,
    required: [...new Set(always.filter((f) => f in outputProperties && !restrictedFields.includes(f)))],
  };

  const info: ModelInfo = {
    cls,
    name: cls.name,
    plural: modelPlural(cls),
    keyFields,
    generatedKey,
    schema: cls.schema,
    relations,
    behaviors,
    operations: operationsOf(cls),
    serverFields,
    restrictedFields,
    ownedFields,
    ownedSchema,
    outputSchema,
    inputSchema,
    patchSchema,
    table: tableShape(keyFields, relations, cls.indexes),
    limits: cls.limits,
    upgrade,
  };
  cache.set(cls, info);
  return info;
}

/**
 * The identity model's key is the identity's id (whatever the authentication service issues), not a
 * UUID it generates: its declared format would promise what the server does not hold.
 */
function keySchema(cls: ModelClass, field: string): JsonSchema {
  const declared = cls.schema.properties[field] as JsonSchema;
  if (!cls.identity || field !== "uuid") return declared;
  const { format: _notHeld, ...rest } = declared;
  return rest;
}

/**
 * Every belongs-to foreign key gets an index (children of X are a Query, never a Scan), unless the
 * table's own partition key already is that field; declared indexes add sort orders.
 */
function tableShape(keyFields: readonly string[], relations: Record<string, Relation>, declared: readonly IndexDeclaration[]): TableShape {
  const key: KeyShape = keyFields[1] ? { hash: keyFields[0] as string, range: keyFields[1] } : { hash: keyFields[0] as string };
  const indexes: TableShape["indexes"] = [...declared];
  for (const relation of Object.values(relations)) {
    if (relation.kind !== "belongsTo" || relation.field === key.hash) continue;
    if (indexes.some((i) => i.hash === relation.field)) continue;
    indexes.push({ name: `by_${relation.field}`, hash: relation.field, range: relation.sortKey ?? key.hash });
  }
  return { key, indexes };
}

export function keyOf(info: ModelInfo, record: Record<string, unknown>): Record<string, string | number> {
  const key: Record<string, string | number> = {};
  for (const field of info.keyFields) {
    const value = record[field];
    if (typeof value !== "string" && typeof value !== "number") throw new Error(`${info.name}: record has no key field '${field}'`);
    key[field] = value;
  }
  return key;
}
