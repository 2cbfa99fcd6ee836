import {
  GraphQLError,
  Kind,
  getNamedType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  valueFromASTUntyped,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { parseQuery, type FilterLimits } from "../query/index.ts";
import { metaField } from "./limits-meta.ts";
import type { ListSize } from "./model-types.ts";
import type { GraphQLLimits } from "./service.ts";

/**
 * A request's variables, or UNKNOWN where they are not known (a subscription's document checked
 * on its own): then every variable counts as the largest value it could hold.
 */
export type Variables = Readonly<Record<string, unknown>> | typeof UNKNOWN;
export const UNKNOWN = Symbol("variables unknown");

/** How many items a list field may hold, from the request's variables (a literal: always the same). */
type Factor = (variables: Variables, defaults: ReadonlyMap<string, unknown>) => number;

/**
 * A selection set's cost with its list sizes left open: `fixed` fields at this level, each list
 * field's own selection counted `factor` times, and named fragments shared by every spread (a
 * fragment is analysed once, so a fragment bomb stays linear).
 */
interface CostNode {
  fixed: number;
  lists: { field: string; factor: Factor; inner: CostNode }[];
  spreads: CostNode[];
}

/** One operation's cost analysis, kept with its validated document and evaluated per request. */
export interface OperationCost {
  operation: OperationDefinitionNode;
  root: CostNode;
  /** The operation's variables' default values. */
  defaults: ReadonlyMap<string, unknown>;
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

/** A variable's value in this request: given, else its default, else undefined (absent or null). */
function variableValue(name: string, variables: Variables, defaults: ReadonlyMap<string, unknown>): unknown {
  if (variables === UNKNOWN) return UNKNOWN;
  const given = Object.hasOwn(variables, name) ? variables[name] : defaults.get(name);
  return given ?? undefined;
}

/**
 * The size a list field may reach, as its resolver decides it: its `limit` argument, else the LIMIT
 * of its `query` string, else the default. A variable counts as the value the request gives it
 * (null or absent: as if the argument were not there); one whose value is unknown, or not one the
 * resolver would take, counts as the maximum.
 */
function factorOf(field: GraphQLField<unknown, unknown>, node: FieldNode, limits: GraphQLLimits): Factor {
  const size = field.extensions.listSize as ListSize | undefined;
  if (size?.counted) return () => 1;
  if (!size?.limit) {
    const n = isList(field.type) ? limits.listFactor : 1;
    return () => n;
  }
  const { default: fallback, max } = size.limit;
  const clamp = (n: number): number => Math.max(1, Math.min(n, max));
  const argument = (name: string): ValueNode | undefined => node.arguments?.find((a) => a.name.value === name)?.value;
  const valueOf = (value: ValueNode | undefined, variables: Variables, defaults: ReadonlyMap<string, unknown>): unknown => {
    if (!value || value.kind === Kind.NULL) return undefined;
    if (value.kind === Kind.VARIABLE) return variableValue(value.name.value, variables, defaults);
    return valueFromASTUntyped(value);
  };
  const limitNode = argument("limit");
  const queryNode = argument("query");
  return (variables, defaults) => {
    const limit = valueOf(limitNode, variables, defaults);
    if (limit !== undefined) return typeof limit === "number" && Number.isFinite(limit) ? clamp(limit) : max;
    const query = valueOf(queryNode, variables, defaults);
    if (query === undefined) return fallback;
    return typeof query === "string" ? clamp(queryLimit(query, size.filter) ?? fallback) : max;
  };
}

/**
 * Builds the cost analysis of each operation of a validated document, mirroring what the executor
 * resolves: every field counts once per item of the lists around it. `__typename` and
 * introspection count like any other field, but inside introspection lists count once (GraphiQL's
 * schema query would otherwise cost the schema's size, which the response's byte budget bounds).
 */
export class CostAnalyser {
  private readonly fragmentNodes = new Map<string, CostNode>();
  private readonly visiting = new Set<string>();

  constructor(
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
  ) {}

  operation(operation: OperationDefinitionNode, root: GraphQLNamedType): OperationCost {
    const defaults = new Map<string, unknown>();
    for (const v of operation.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, valueFromASTUntyped(v.defaultValue));
    return { operation, root: this.node(operation.selectionSet, root, false), defaults };
  }

  private node(set: SelectionSetNode, parent: GraphQLNamedType, introspection: boolean): CostNode {
    const node: CostNode = { fixed: 0, lists: [], spreads: [] };
    this.collect(set, parent, introspection, node);
    return node;
  }

  private collect(set: SelectionSetNode, parent: GraphQLNamedType, introspection: boolean, node: CostNode): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        node.fixed++;
        const meta = metaField(selection.name.value, parent === this.schema.getQueryType());
        const field = meta ?? (isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined);
        if (!field || !selection.selectionSet) continue;
        const inner = introspection || meta !== undefined;
        const child = this.node(selection.selectionSet, getNamedType(field.type), inner);
        node.lists.push({ field: `${parent.name}.${field.name}`, factor: inner ? () => 1 : factorOf(field, selection, this.limits), inner: child });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent;
        this.collect(selection.selectionSet, type ?? parent, introspection, node);
      } else {
        const fragment = this.fragment(selection.name.value, parent);
        if (fragment) node.spreads.push(fragment);
      }
    }
  }

  /** Fragment cycles never reach here (validation refuses them); `visiting` guards a malformed document. */
  private fragment(name: string, parent: GraphQLNamedType): CostNode | undefined {
    const known = this.fragmentNodes.get(name);
    if (known) return known;
    const definition = this.fragments.get(name);
    if (!definition || this.visiting.has(name)) return undefined;
    this.visiting.add(name);
    const node = this.node(definition.selectionSet, this.schema.getType(definition.typeCondition.name.value) ?? parent, false);
    this.visiting.delete(name);
    this.fragmentNodes.set(name, node);
    return node;
  }
}

/** What one evaluation found: the total, and the field whose own items cost most (per unit of its parent's multiplier). */
interface Evaluated {
  cost: number;
  /** Fields resolved at this level and through spreads, lists' selections aside. */
  own: number;
  heaviest?: { field: string; cost: number };
}

/**
 * The operation's cost for these variables, and its costliest list field: the one whose own
 * selection (what it resolves per item, nested lists aside) times its items and the items around
 * it is largest. Each shared node is evaluated once per request.
 */
export function evaluateCost(analysis: OperationCost, variables: Variables): Evaluated {
  const memo = new Map<CostNode, Evaluated>();
  const evaluate = (node: CostNode): Evaluated => {
    const known = memo.get(node);
    if (known) return known;
    let cost = node.fixed;
    let own = node.fixed;
    let heaviest: Evaluated["heaviest"];
    const consider = (candidate: Evaluated["heaviest"], scale: number) => {
      if (candidate && (!heaviest || candidate.cost * scale > heaviest.cost)) heaviest = { field: candidate.field, cost: candidate.cost * scale };
    };
    for (const spread of node.spreads) {
      const inner = evaluate(spread);
      cost += inner.cost;
      own += inner.own;
      consider(inner.heaviest, 1);
    }
    for (const list of node.lists) {
      const factor = list.factor(variables, analysis.defaults);
      const inner = evaluate(list.inner);
      cost += factor * inner.cost;
      consider({ field: list.field, cost: factor * inner.own }, 1);
      consider(inner.heaviest, factor);
    }
    const result: Evaluated = { cost, own, ...(heaviest ? { heaviest } : {}) };
    memo.set(node, result);
    return result;
  };
  return evaluate(analysis.root);
}

/** QUERY_TOO_COSTLY for each operation whose cost, with these variables, passes the maximum. */
export function costErrors(analyses: readonly OperationCost[], variables: Variables, limits: GraphQLLimits): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const analysis of analyses) {
    const { cost, heaviest } = evaluateCost(analysis, variables);
    if (cost <= limits.maxCost) continue;
    const costliest = heaviest
      ? `; the costliest field is ${heaviest.field} (about ${Math.round(heaviest.cost)} fields: lower its limit)`
      : " (lower the limit arguments)";
    errors.push(
      new GraphQLError(`The query may resolve about ${cost} fields; at most ${limits.maxCost} are allowed${costliest}`, {
        nodes: [analysis.operation],
        extensions: { code: "QUERY_TOO_COSTLY", limit: limits.maxCost, actual: cost, ...(heaviest ? { field: heaviest.field } : {}) },
      }),
    );
  }
  return errors;
}
