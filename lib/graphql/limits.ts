import {
  GraphQLError, Kind, getNamedType, isListType, isNonNullType, isObjectType, isInterfaceType,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType,
  type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from "graphql";
import { parseQuery } from "../query/index.ts";
import type { ListSize } from "./model-types.ts";
import type { GraphQLLimits } from "./service.ts";

interface Tally {
  depth: number;
  aliases: number;
  cost: number;
}

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/** The LIMIT a query-language string asks for; undefined when it has none or does not parse (the resolver refuses it then). */
function queryLimit(text: string): number | undefined {
  try {
    return parseQuery(text).limit;
  } catch {
    return undefined;
  }
}

/**
 * The size a list field may reach: its `limit` argument, else the LIMIT of its `query` string, else
 * the default; a variable in either may hold anything, so it counts as the maximum.
 */
function factor(field: GraphQLField<unknown, unknown>, node: FieldNode, limits: GraphQLLimits): number {
  const size = field.extensions.listSize as ListSize | undefined;
  if (size?.counted) return 1;
  if (size?.limit) {
    const { default: fallback, max } = size.limit;
    const clamp = (n: number): number => Math.max(1, Math.min(n, max));
    const argument = (name: string) => node.arguments?.find((a) => a.name.value === name)?.value;
    const limit = argument("limit");
    if (limit && limit.kind !== Kind.NULL) return limit.kind === Kind.INT || limit.kind === Kind.FLOAT ? clamp(Number(limit.value)) : max;
    const query = argument("query");
    if (query?.kind === Kind.VARIABLE) return max;
    if (query?.kind === Kind.STRING) return clamp(queryLimit(query.value) ?? fallback);
    return fallback;
  }
  return isList(field.type) ? limits.listFactor : 1;
}

class Walker {
  readonly tally: Tally = { depth: 0, aliases: 0, cost: 0 };

  constructor(
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
  ) {}

  walk(set: SelectionSetNode, parent: GraphQLNamedType, depth: number, multiplier: number, seen: Set<string>): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        // Introspection is bounded by the token limit and switched off per stage, not counted here.
        if (selection.name.value.startsWith("__")) continue;
        if (selection.alias) this.tally.aliases++;
        this.tally.depth = Math.max(this.tally.depth, depth);
        this.tally.cost += multiplier;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        if (field && selection.selectionSet) {
          this.walk(selection.selectionSet, getNamedType(field.type), depth + 1, multiplier * factor(field, selection, this.limits), seen);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent;
        this.walk(selection.selectionSet, type ?? parent, depth, multiplier, seen);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        const type = this.schema.getType(fragment.typeCondition.name.value) ?? parent;
        this.walk(fragment.selectionSet, type, depth, multiplier, new Set([...seen, name]));
      }
    }
  }
}

function rootFields(operation: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>): number {
  let count = 0;
  const visit = (set: SelectionSetNode, seen: Set<string>): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) count += s.name.value === "__typename" ? 0 : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        const fragment = fragments.get(s.name.value);
        if (fragment) visit(fragment.selectionSet, new Set([...seen, s.name.value]));
      }
    }
  };
  visit(operation.selectionSet, new Set());
  return count;
}

function refusal(code: string, message: string, limit: number, actual: number, node: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(message, { nodes: [node], extensions: { code, limit, actual } });
}

/**
 * Abuse limits, checked on the validated document before any resolver runs (and cached with it):
 * depth, aliases, root fields and estimated cost, each with its own code. Tokens are limited by
 * the parser itself.
 */
export function checkLimits(schema: GraphQLSchema, document: DocumentNode, limits: GraphQLLimits): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const errors: GraphQLError[] = [];
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(operation.operation);
    if (!root) continue;
    const walker = new Walker(fragments, schema, limits);
    walker.walk(operation.selectionSet, root, 1, 1, new Set());
    const { depth, aliases, cost } = walker.tally;
    const roots = rootFields(operation, fragments);
    if (depth > limits.maxDepth) errors.push(refusal("QUERY_TOO_DEEP", `The query is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed`, limits.maxDepth, depth, operation));
    if (aliases > limits.maxAliases) errors.push(refusal("TOO_MANY_ALIASES", `The query uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, limits.maxAliases, aliases, operation));
    if (roots > limits.maxRootFields) errors.push(refusal("TOO_MANY_ROOT_FIELDS", `The operation selects ${roots} root fields; at most ${limits.maxRootFields} are allowed`, limits.maxRootFields, roots, operation));
    if (cost > limits.maxCost) errors.push(refusal("QUERY_TOO_COSTLY", `The query may resolve about ${cost} fields; at most ${limits.maxCost} are allowed (lower the limit arguments)`, limits.maxCost, cost, operation));
  }
  return errors;
}
