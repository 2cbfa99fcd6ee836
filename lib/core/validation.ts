import type { ErrorObject } from "ajv";
import { ValidationError, type FieldError } from "./errors.ts";
import type { JsonSchema } from "./schema.ts";

/** What ajv's compiled (or standalone) validators are: a predicate that leaves its errors behind. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export type SchemaCompiler = (schema: JsonSchema) => Validator;

/**
 * The identity of a schema for validators compiled at build time: its JSON text (TypeBox's symbol
 * keys are not part of it). The build and the run time derive it with the same function.
 */
export function schemaKey(schema: JsonSchema): string {
  return JSON.stringify(schema);
}

/**
 * How one application validates: the validators `npm run build` compiled (schema-cache/validators.mjs),
 * by schema key, and, where schemas the build did not see are validated (tests, the CLI), a compiler
 * for them (./validation-compiler.ts). A Lambda function is composed with the former alone, so
 * ajv's compiler never enters its bundle.
 */
export class Validation {
  private readonly bySchema = new WeakMap<object, Validator>();

  constructor(
    private readonly precompiled: Readonly<Record<string, Validator>> = {},
    private readonly compile?: SchemaCompiler,
  ) {}

  private validatorFor(schema: JsonSchema): Validator {
    let validate = this.bySchema.get(schema);
    if (!validate) {
      const key = schemaKey(schema);
      validate = this.precompiled[key] ?? this.compile?.(schema);
      if (!validate)
        throw new Error(`no validator was compiled for this schema (schema-cache/validators.mjs is stale: run \`npm run build\`): ${key.slice(0, 200)}`);
      this.bySchema.set(schema, validate);
    }
    return validate;
  }

  /** Validates and throws one ValidationError listing every problem (not just the first). */
  assert(schema: JsonSchema, value: unknown, message = "Validation failed"): void {
    const validate = this.validatorFor(schema);
    const errors: FieldError[] = [];
    unsafeNumbers(value, "", errors);
    if (validate(value) && errors.length === 0) return;
    const seen = new Set<string>(errors.map((e) => `${e.path} ${e.message}`));
    for (const error of validate.errors ?? []) {
      // A union (e.g. an enum of literals) reports one error per branch plus its own: keep it short.
      if (error.keyword === "const" || (error.keyword === "type" && error.schemaPath.includes("anyOf"))) continue;
      const field = error.keyword === "anyOf" ? { path: error.instancePath || "/", message: describeUnion(error) } : toFieldError(error);
      const id = `${field.path} ${field.message}`;
      if (!seen.has(id)) errors.push(field);
      seen.add(id);
    }
    throw new ValidationError(errors.length > 0 ? errors : [{ path: "/", message: "is invalid" }], message);
  }
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
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      out.push({ path: path || "/", message: "must be a finite number within +/-2^53" });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unsafeNumbers(item, `${path}/${i}`, out));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) unsafeNumbers(item, `${path}/${escapePointer(key)}`, out);
  }
}

function describeUnion(error: ErrorObject): string {
  const branches = (error.parentSchema as JsonSchema | undefined)?.anyOf ?? [];
  const literals = branches.map((b) => b.const).filter((c): c is string | number => typeof c === "string" || typeof c === "number");
  return literals.length === branches.length && literals.length > 0
    ? `must be one of ${literals.map((l) => JSON.stringify(l)).join(", ")}`
    : "must match one of the allowed shapes";
}
