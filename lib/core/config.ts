import type { TSchema } from "@sinclair/typebox";
import { Type } from "./schema.ts";
import { normalizeTypeName, type ServiceClass } from "./service.ts";

export interface ServiceConfig {
  type: string;
  [option: string]: unknown;
}

export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

/** A problem with one option: `option` is its dotted path (`redirects.verified`), `(options)` for the whole. */
export interface OptionProblem {
  option: string;
  problem: string;
}

/** Checks complete (defaulted) options against their schema. */
export type OptionsCheck = (schema: TSchema, options: Record<string, unknown>) => OptionProblem[];

const NO_OPTIONS = Type.Object({}, { additionalProperties: false });

type SchemaNode = {
  default?: unknown;
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: unknown;
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The schema's defaults filled in where a value is missing, at every depth, as TypeBox's
 * `Value.Default` does for the schemas options use (objects, arrays, scalars, unions whose default
 * is their own): a missing object with `default: {}` is created and its own defaults filled.
 * test/core/config-defaults.test.ts checks it against `Value.Default` for every service type.
 */
export function withDefaults(schema: TSchema, value: unknown): unknown {
  const node = schema as SchemaNode;
  let result = value === undefined && "default" in node ? structuredClone(node.default) : value;
  if (isObject(result)) {
    for (const [key, inner] of Object.entries(node.properties ?? {})) {
      const filled = withDefaults(inner as TSchema, result[key]);
      if (filled !== undefined) result[key] = filled;
    }
    const extra = node.additionalProperties;
    if (isObject(extra)) {
      for (const key of Object.keys(result)) if (!(key in (node.properties ?? {}))) result[key] = withDefaults(extra as TSchema, result[key]);
    }
  } else if (Array.isArray(result) && isObject(node.items)) {
    result = result.map((item) => withDefaults(node.items as TSchema, item));
  }
  return result;
}

/**
 * Resolves every configured service to its type and complete options, checking the options where
 * the application is given a check (`npm start`, the CLI and so `serverless package`, the tests:
 * ./config-check.ts). Lambda functions are composed without one: their configuration was checked
 * at packaging, and TypeBox's interpreter (~65 KB) stays out of their bundles and off their cold
 * start. Defaults are applied everywhere alike. Messages name the service, the option and the problem, because this is what
 * a developer reads when a deploy will not start.
 */
export function resolveServices(
  configured: Record<string, ServiceConfig>,
  types: readonly ServiceClass[],
  check?: OptionsCheck,
): { name: string; cls: ServiceClass; options: Record<string, unknown> }[] {
  const byType = new Map(types.map((t) => [normalizeTypeName(t.type), t]));
  const problems: string[] = [];
  const resolved: { name: string; cls: ServiceClass; options: Record<string, unknown> }[] = [];
  for (const [name, config] of Object.entries(configured)) {
    const cls = typeof config.type === "string" ? byType.get(normalizeTypeName(config.type)) : undefined;
    if (!cls) {
      problems.push(`service '${name}': unknown type '${String(config.type)}' (known: ${types.map((t) => t.type).join(", ")})`);
      continue;
    }
    const given: Record<string, unknown> = { ...config };
    delete given.type;
    const early = cls.optionProblems?.(given) ?? [];
    if (early.length > 0) {
      problems.push(...early.map((p) => `service '${name}' (${cls.type}): ${p}`));
      continue;
    }
    // The spread keeps TypeBox's kind marker (a symbol key), which its interpreter needs.
    const schema: TSchema = cls.options ? { ...cls.options, additionalProperties: false } : NO_OPTIONS;
    // Defaults are applied here (and only here) so that services see complete options.
    const options = withDefaults(schema, structuredClone(given)) as Record<string, unknown>;
    const found = check?.(schema, options) ?? [];
    if (found.length > 0) {
      problems.push(...found.map((p) => `service '${name}' (${cls.type}): option '${p.option}' ${p.problem}`));
      continue;
    }
    resolved.push({ name, cls, options });
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid application configuration:\n  ${problems.join("\n  ")}`);
  return resolved;
}
