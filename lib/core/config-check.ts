import { FormatRegistry, type TSchema } from "@sinclair/typebox";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import type { OptionProblem, OptionsCheck } from "./config.ts";

/**
 * Options are checked by TypeBox's interpreter rather than a compiled validator: a few options,
 * checked once per process, cost less than generating validator code.
 */
const FORMATS: Record<string, (value: string) => boolean> = {
  email: (v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v),
  uri: (v) => URL.canParse(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  "date-time": (v) => !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}T/.test(v),
};

function describe(type: ValueErrorType, message: string): string {
  if (type === ValueErrorType.ObjectAdditionalProperties) return "is not an option of this type";
  if (type === ValueErrorType.ObjectRequiredProperty) return "is required";
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** One problem per option (the first TypeBox reports), in TypeBox's order. */
export function checkOptions(schema: TSchema, options: Record<string, unknown>): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const reported = new Set<string>();
  for (const error of Value.Errors(schema, options)) {
    const option = error.path.slice(1).replace(/\//g, ".") || "(options)";
    if (reported.has(option)) continue;
    reported.add(option);
    problems.push({ option, problem: describe(error.type, error.message) });
  }
  return problems;
}

/**
 * The check an application run from source is given (ApplicationParts.checkOptions): it refuses to
 * build on a problem. `npm start`, the CLI and the tests use it; Lambda functions do not (their
 * configuration was checked when `serverless package` ran the CLI's check).
 */
export function serviceOptionsCheck(): OptionsCheck {
  for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
  return checkOptions;
}
