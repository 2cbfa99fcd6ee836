import { isEnumType, specifiedScalarTypes, type GraphQLLeafType, type GraphQLScalarType } from "graphql";
import { AnyScalar, DateScalar, LongScalar } from "../scalars.ts";

/**
 * Leaf types whose `serialize` returns a value or throws, never null or undefined for a value:
 * graphql-js's own scalars, enums (an unknown value throws), and ours. Only for these may the runner
 * skip graphql-js's null check, whose message prints the value with graphql-js's own formatter.
 */
const NEVER_NULL = new Set<GraphQLScalarType>([...specifiedScalarTypes, LongScalar, DateScalar, AnyScalar]);

export function serializesWithoutNull(type: GraphQLLeafType): boolean {
  return isEnumType(type) || NEVER_NULL.has(type);
}
