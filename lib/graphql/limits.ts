import {
  GraphQLError, Kind, SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef, getNamedType, isListType, isNonNullType, isObjectType, isInterfaceType,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType,
  type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from "graphql";
import { parseQuery, type FilterLimits } from "../query/index.ts";
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
function queryLimit(text: string, filterLimits: Partial<FilterLimits> | undefined): number | undefined {
  try {
    return parseQuery(text, filterLimits).limit;
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
    if (query?.kind === Kind.STRING) return clamp(queryLimit(query.value, size.filter) ?? fallback);
    return fallback;
  }
  return isList(field.type) ? limits.listFactor : 1;
}

/**
 * Walks an operation's selections. A named fragment is measured once and its tally reused at
 * every spread: a fragment spreading the next one twice, 40 deep, would otherwise cost 2^40 steps
 * before any limit could refuse it. Fragment cycles never reach here (validation refuses them);
 * `visiting` only keeps a malformed document from recursing forever.
 */
class Walker {
  private readonly summaries = new Map<string, Tally>();
  private readonly rootSummaries = new Map<string, number>();
  private readonly visiting = new Set<string>();

  constructor(
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
  ) {}

  /** The tally of a selection set whose fields sit at depth 1 with multiplier 1. */
  measure(set: SelectionSetNode, parent: GraphQLNamedType): Tally {
    const tally: Tally = { depth: 0, aliases: 0, cost: 0 };
    this.walk(set, parent, 1, 1, tally);
    return tally;
  }

  /** The fields selected at the root, through fragments but not inside fields; `__typename` aside. */
  rootFields(set: SelectionSetNode): number {
    let count = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) count += s.name.value === "__typename" ? 0 : 1;
      else if (s.kind === Kind.INLINE_FRAGMENT) count += this.rootFields(s.selectionSet);
      else count += this.summarize(s.name.value, this.rootSummaries, 0, (f) => this.rootFields(f.selectionSet));
    }
    return count;
  }

  /**
   * `__typename` and introspection (`__schema`, `__type` and all below them) count toward aliases
   * and cost like any other field (300 aliased `__typename` passed when they did not). Inside
   * introspection, depth is not counted and lists count once: GraphiQL's own schema query nests 13
   * deep and its lists' sizes are the schema's, not the caller's (the response's byte budget bounds
   * what they answer).
   */
  private walk(set: SelectionSetNode, parent: GraphQLNamedType, depth: number, multiplier: number, tally: Tally, introspection = false): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const meta = metaField(selection.name.value, parent === this.schema.getQueryType());
        if (selection.alias) tally.aliases++;
        if (!introspection && !meta) tally.depth = Math.max(tally.depth, depth);
        tally.cost += multiplier;
        const field = meta ?? (isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined);
        if (field && selection.selectionSet) {
          const inner = introspection || meta !== undefined;
          this.walk(selection.selectionSet, getNamedType(field.type), depth + 1, inner ? multiplier : multiplier * factor(field, selection, this.limits), tally, inner);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent;
        this.walk(selection.selectionSet, type ?? parent, depth, multiplier, tally, introspection);
      } else {
        const empty: Tally = { depth: 0, aliases: 0, cost: 0 };
        const inner = this.summarize(selection.name.value, this.summaries, empty, (f) => this.measure(f.selectionSet, this.schema.getType(f.typeCondition.name.value) ?? parent));
        // Its fields sit at this depth; its cost scales with the lists around the spread.
        if (inner.depth > 0 && !introspection) tally.depth = Math.max(tally.depth, depth - 1 + inner.depth);
        tally.aliases += inner.aliases;
        tally.cost += multiplier * inner.cost;
      }
    }
  }

  private summarize<T>(name: string, memo: Map<string, T>, empty: T, compute: (fragment: FragmentDefinitionNode) => T): T {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    if (!fragment || this.visiting.has(name)) return empty;
    this.visiting.add(name);
    const value = compute(fragment);
    this.visiting.delete(name);
    memo.set(name, value);
    return value;
  }
}

/** The definitions of `__typename` (anywhere) and `__schema`/`__type` (on the query root only). */
function metaField(name: string, onQueryRoot: boolean): GraphQLField<unknown, unknown> | undefined {
  if (name === "__typename") return TypeNameMetaFieldDef;
  if (!onQueryRoot) return undefined;
  if (name === "__schema") return SchemaMetaFieldDef;
  if (name === "__type") return TypeMetaFieldDef;
  return undefined;
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
  // Fragment tallies do not depend on the operation: one walker measures each fragment once.
  const walker = new Walker(fragments, schema, limits);
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(operation.operation);
    if (!root) continue;
    const { depth, aliases, cost } = walker.measure(operation.selectionSet, root);
    const roots = walker.rootFields(operation.selectionSet);
    if (depth > limits.maxDepth) errors.push(refusal("QUERY_TOO_DEEP", `The query is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed`, limits.maxDepth, depth, operation));
    if (aliases > limits.maxAliases) errors.push(refusal("TOO_MANY_ALIASES", `The query uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, limits.maxAliases, aliases, operation));
    if (roots > limits.maxRootFields) errors.push(refusal("TOO_MANY_ROOT_FIELDS", `The operation selects ${roots} root fields; at most ${limits.maxRootFields} are allowed`, limits.maxRootFields, roots, operation));
    if (cost > limits.maxCost) errors.push(refusal("QUERY_TOO_COSTLY", `The query may resolve about ${cost} fields; at most ${limits.maxCost} are allowed (lower the limit arguments)`, limits.maxCost, cost, operation));
  }
  return errors;
}
