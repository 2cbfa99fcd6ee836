/**
 * Just enough JSON Schema to know what a field path may hold. A TypeBox schema is one of these;
 * the index signature is what lets its other keywords (and TSchema's) through.
 */
export interface JsonSchema {
  [keyword: string]: unknown;
  type?: string | readonly string[];
  properties?: Readonly<Record<string, JsonSchema>>;
  patternProperties?: Readonly<Record<string, JsonSchema>>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  oneOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  enum?: readonly unknown[];
  const?: unknown;
  format?: string;
}

export type Kind = "string" | "number" | "boolean" | "null" | "array" | "object";

/** What a field may hold. `any` means the schema does not say, and every value is accepted. */
export interface FieldType {
  any: boolean;
  kinds: Set<Kind>;
  /** The schemas of array items, when `kinds` has "array". */
  items: JsonSchema[];
}

const KINDS = new Set<string>(["string", "number", "boolean", "null", "array", "object"]);

/** Unions of any kind (anyOf, oneOf, allOf alike) are read leniently as "may be any of them". */
export function typeOf(schemas: readonly JsonSchema[]): FieldType {
  const type: FieldType = { any: false, kinds: new Set(), items: [] };
  for (const schema of schemas) addType(type, schema);
  return type;
}

function addType(type: FieldType, schema: JsonSchema): void {
  const variants = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  for (const variant of variants) addType(type, variant);
  let said = variants.length > 0;
  if ("const" in schema) {
    addKind(type, kindOfValue(schema.const));
    said = true;
  } else if (schema.enum !== undefined) {
    for (const value of schema.enum) addKind(type, kindOfValue(value));
    said = true;
  } else if (schema.type !== undefined) {
    for (const name of typeof schema.type === "string" ? [schema.type] : schema.type) {
      addKind(type, name === "integer" ? "number" : name);
    }
    said = true;
  } else if (schema.properties !== undefined) {
    addKind(type, "object");
    said = true;
  } else if (schema.items !== undefined) {
    addKind(type, "array");
    said = true;
  }
  if (!said) type.any = true;
  if (schema.items !== undefined) type.items.push(...(Array.isArray(schema.items) ? schema.items : [schema.items as JsonSchema]));
}

function addKind(type: FieldType, name: string): void {
  if (KINDS.has(name)) type.kinds.add(name as Kind);
  else type.any = true;
}

export function kindOfValue(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const kind = typeof value;
  if (kind === "string" || kind === "number" || kind === "boolean") return kind;
  return "object";
}

/**
 * The schemas a dotted path reaches, or undefined when no branch of the schema has that path.
 * A schema that says nothing (`{}`) lets any deeper path through.
 */
export function resolvePath(root: JsonSchema, segments: readonly string[]): JsonSchema[] | undefined {
  let current: JsonSchema[] = [root];
  for (const segment of segments) {
    const next: JsonSchema[] = [];
    for (const schema of current.flatMap(branches)) {
      const property = schema.properties !== undefined && Object.hasOwn(schema.properties, segment) ? schema.properties[segment] : undefined;
      const patterned = patternMatches(schema, segment);
      if (property !== undefined) next.push(property);
      else if (patterned.length > 0) next.push(...patterned);
      else if (typeof schema.additionalProperties === "object") next.push(schema.additionalProperties);
      else if (schema.additionalProperties === true && isObjectLike(schema)) next.push({});
      else if (typeOf([schema]).any) next.push({});
    }
    if (next.length === 0) return undefined;
    current = next;
  }
  return current;
}

/** Patterns come from the model's own schema (TypeBox's Record uses them), never from a query. */
function patternMatches(schema: JsonSchema, segment: string): JsonSchema[] {
  const patterns = Object.entries(schema.patternProperties ?? {});
  return patterns.filter(([pattern]) => new RegExp(pattern, "u").test(segment)).map(([, property]) => property);
}

function branches(schema: JsonSchema): JsonSchema[] {
  const variants = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return [schema, ...variants.flatMap(branches)];
}

function isObjectLike(schema: JsonSchema): boolean {
  return schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
}
