import { normalizeTypeName, type ServiceClass } from "./service.ts";
import { createAjv } from "./validation.ts";

export interface ServiceConfig {
  type: string;
  [option: string]: unknown;
}

export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

// Defaults are applied here (and only here) so that services see complete options.
const ajv = createAjv({ useDefaults: true });

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
    const options: Record<string, unknown> = { ...config };
    delete options.type;
    const schema = cls.options ? { ...cls.options, additionalProperties: false } : { type: "object", additionalProperties: false };
    const validate = ajv.compile(schema);
    if (!validate(options)) {
      for (const error of validate.errors ?? []) {
        const params = error.params as { additionalProperty?: string; missingProperty?: string };
        const option = params.additionalProperty ?? params.missingProperty ?? error.instancePath.slice(1).replace(/\//g, ".");
        const problem =
          error.keyword === "additionalProperties" ? "is not an option of this type" :
          error.keyword === "required" ? "is required" : (error.message ?? "is invalid");
        problems.push(`service '${name}' (${cls.type}): option '${option}' ${problem}`);
      }
      continue;
    }
    resolved.push({ name, cls, options });
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid application configuration:\n  ${problems.join("\n  ")}`);
  return resolved;
}
