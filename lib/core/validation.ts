import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { ValidationError, type FieldError } from "./errors.ts";
import type { JsonSchema } from "./schema.ts";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const loaded = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = loaded.default ?? loaded;

/**
 * Every validator of the framework speaks the same JSON Schema dialect, formats included.
 * Schemas are ours (built with TypeBox, checked against the meta-schema in the tests), so they
 * are not re-checked at run time: compiling ajv's meta-schema would cost ~40 ms of cold start.
 */
export function createAjv(options: { useDefaults?: boolean } = {}): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    verbose: true,
    useDefaults: options.useDefaults ?? false,
    validateSchema: false,
  });
  addFormats(instance);
  return instance;
}

// Built on first validation: a route that validates nothing (a GET) never pays for it.
let shared: Ajv | undefined;

const compiled = new WeakMap<object, ValidateFunction>();

function compile(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    shared ??= createAjv();
    validate = shared.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** ajv reports the parent for a missing or extra property; clients want the property's own pointer. */
export function toFieldError(error: ErrorObject): FieldError {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  if (error.keyword === "required" && params.missingProperty !== undefined) {
    return { path: `${error.instancePath}/${escapePointer(params.missingProperty)}`, message: "is required" };
  }
  if (error.keyword === "additionalProperties" && params.additionalProperty !== undefined) {
    return { path: `${error.instancePath}/${escapePointer(params.additionalProperty)}`, message: "is not an allowed field" };
  }
  return { path: error.instancePath || "/", message: error.message ?? "is invalid" };
}

/**
 * Numbers beyond +/-2^53 cannot be stored and read back exactly (DynamoDB's SDK refuses them):
 * they are a client error, whatever the schema says.
 */
function unsafeNumbers(value: unknown, path: string, out: FieldError[]): void {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) out.push({ path: path || "/", message: "must be a finite number within +/-2^53" });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unsafeNumbers(item, `${path}/${i}`, out));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) unsafeNumbers(item, `${path}/${escapePointer(key)}`, out);
  }
}

/** Validates and throws one ValidationError listing every problem (not just the first). */
export function assertValid(schema: JsonSchema, value: unknown, message = "Validation failed"): void {
  const validate = compile(schema);
  const errors: FieldError[] = [];
  unsafeNumbers(value, "", errors);
  if (validate(value) && errors.length === 0) return;
  const seen = new Set<string>(errors.map((e) => `${e.path} ${e.message}`));
  for (const error of validate.errors ?? []) {
    // A union (e.g. an enum of literals) reports one error per branch plus its own: keep it short.
    if (error.keyword === "const" || error.keyword === "type" && error.schemaPath.includes("anyOf")) continue;
    const field = error.keyword === "anyOf" ? { path: error.instancePath || "/", message: describeUnion(error) } : toFieldError(error);
    const id = `${field.path} ${field.message}`;
    if (!seen.has(id)) errors.push(field);
    seen.add(id);
  }
  throw new ValidationError(errors.length > 0 ? errors : [{ path: "/", message: "is invalid" }], message);
}

function describeUnion(error: ErrorObject): string {
  const branches = (error.parentSchema as JsonSchema | undefined)?.anyOf ?? [];
  const literals = branches.map((b) => b.const).filter((c): c is string | number => typeof c === "string" || typeof c === "number");
  return literals.length === branches.length && literals.length > 0
    ? `must be one of ${literals.map((l) => JSON.stringify(l)).join(", ")}`
    : "must match one of the allowed shapes";
}
