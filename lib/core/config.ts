import { FormatRegistry, Type, type TSchema } from "@sinclair/typebox";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import { normalizeTypeName, type ServiceClass } from "./service.ts";

export interface ServiceConfig {
  type: string;
  [option: string]: unknown;
}

export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

/**
 * Options are checked by TypeBox's interpreter rather than a compiled validator: this runs at every
 * cold start, where generating validator code would cost more than checking a few options.
 */
const FORMATS: Record<string, (value: string) => boolean> = {
  email: (v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v),
  uri: (v) => URL.canParse(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  "date-time": (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v),
};
for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);

const NO_OPTIONS = Type.Object({}, { additionalProperties: false });

function describe(type: ValueErrorType, message: string): string {
  if (type === ValueErrorType.ObjectAdditionalProperties) return "is not an option of this type";
  if (type === ValueErrorType.ObjectRequiredProperty) return "is required";
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/**
 * Checks every configured service against its type's option schema. Messages name the service,
 * the option and the problem, because this is what a developer reads when a deploy will not start.
 */
export function resolveServices(
  configured: Record<string, ServiceConfig>,
  types: readonly ServiceClass[],
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
    // The spread keeps TypeBox's kind marker (a symbol key), which Value needs.
    const schema: TSchema = cls.options ? { ...cls.options, additionalProperties: false } : NO_OPTIONS;
    // Defaults are applied here (and only here) so that services see complete options.
    const options = Value.Default(schema, structuredClone(given)) as Record<string, unknown>;
    const reported = new Set<string>();
    for (const error of Value.Errors(schema, options)) {
      const option = error.path.slice(1).replace(/\//g, ".") || "(options)";
      if (reported.has(option)) continue;
      reported.add(option);
      problems.push(`service '${name}' (${cls.type}): option '${option}' ${describe(error.type, error.message)}`);
    }
    if (reported.size > 0) continue;
    resolved.push({ name, cls, options });
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid application configuration:\n  ${problems.join("\n  ")}`);
  return resolved;
}
