import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from "graphql";

/** Long holds numbers up to 2^52 either way, the range where every integer is exact in a double. */
export const LONG_LIMIT = 2 ** 52;

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });
}

function checkLong(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw badInput(`Long cannot represent ${describe(value)}: expected a finite number`);
  }
  if (Math.abs(value) > LONG_LIMIT) throw badInput(`Long cannot represent ${value}: outside ±2^52`);
  return value;
}

function describe(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number") return String(value);
  return value === null ? "null" : typeof value;
}

/**
 * `number` and `integer` fields alike, so decimals pass; what cannot be stored without
 * loss (NaN, Infinity, a string, anything beyond ±2^52) fails.
 */
export const LongScalar = new GraphQLScalarType<number, number>({
  name: "Long",
  description: "A number (integer or decimal) between -2^52 and 2^52.",
  serialize: (value) => {
    try {
      return checkLong(value);
    } catch (error) {
      // A stored value we cannot represent is our problem, not the client's.
      throw new GraphQLError((error as Error).message, { extensions: { code: "INTERNAL_SERVER_ERROR" } });
    }
  },
  parseValue: checkLong,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT) throw badInput(`Long cannot represent a ${ast.kind} literal`);
    // Every integer within ±2^52 is exact in a double, so the range check is the exactness check.
    return checkLong(Number(ast.value));
  },
});

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

function checkDate(value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw badInput("Date cannot represent an invalid Date");
    return value.toISOString();
  }
  if (typeof value !== "string" || !ISO_8601.test(value) || Number.isNaN(Date.parse(value))) {
    throw badInput(`Date cannot represent ${describe(value)}: expected an ISO 8601 date-time such as 2024-05-01T12:00:00Z`);
  }
  return value;
}

/** ISO 8601 date-time strings in and out (what the store keeps); Date objects are accepted too. */
export const DateScalar = new GraphQLScalarType<string, string>({
  name: "Date",
  description: "An ISO 8601 date-time string, e.g. 2024-05-01T12:00:00.000Z.",
  serialize: checkDate,
  parseValue: checkDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw badInput("Date cannot represent a non-string literal");
    return checkDate(ast.value);
  },
});

/** Any JSON value; the domain's JSON Schema validation decides what shape it must have. */
export const AnyScalar = new GraphQLScalarType<unknown, unknown>({
  name: "Any",
  description: "Any JSON value (a JSON map for objects without declared properties).",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast: ValueNode, variables) => valueFromASTUntyped(ast, variables),
});
