import type { JsonSchema } from "../core/schema.ts";

const BY_FORMAT: Record<string, string> = {
  uuid: "3f1c2a9e-8b4d-4f6a-9c2e-5d7b1a0e4c3f",
  email: "alice@example.com",
  "date-time": "2026-01-01T00:00:00.000Z",
  date: "2026-01-01",
  uri: "https://example.com/",
};

function exampleString(schema: JsonSchema): string {
  if (typeof schema.format === "string" && BY_FORMAT[schema.format]) return BY_FORMAT[schema.format] as string;
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  return "example".padEnd(min, "x").slice(0, max);
}

function exampleNumber(schema: JsonSchema): number {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const value = min !== undefined && min > 1 ? min : max !== undefined && max < 1 ? max : 1;
  return schema.type === "integer" ? Math.ceil(value) : value;
}

/**
 * A value the schema accepts, for the document's examples: the schema's own `examples`, `default`,
 * `const` or first `enum` value when it declares one, else one built from its type, format and
 * bounds. A `pattern` cannot be inverted: a field with one declares `examples` (a unit test
 * validates every example in the document against its schema).
 */
export function exampleOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return {};
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) {
    const branch = schema.anyOf.find((s) => s.type !== "null") ?? schema.anyOf[0];
    return exampleOf(branch);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return exampleString(schema);
    case "integer":
    case "number":
      return exampleNumber(schema);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array":
      return [exampleOf(schema.items)];
    case "object":
    case undefined: {
      if (!schema.properties) return {};
      return Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, exampleOf(field)]));
    }
    default:
      return null;
  }
}

/**
 * Every value a field may take when there are few (an enum, a union of literals, a boolean): the
 * policy probe tries them all, since a policy often turns on such a field (a post's `status`).
 */
export function choicesOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  if (schema.type === "boolean") return [true, false];
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((s) => s.const !== undefined)) return schema.anyOf.map((s) => s.const);
  return undefined;
}
