import {
  GraphQLError,
  Kind,
  getNamedType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { CostAnalyser, type OperationCost } from "./limits-cost.ts";
import { metaField } from "./limits-meta.ts";
import type { GraphQLLimits } from "./service.ts";

interface Tally {
  depth: number;
  aliases: number;
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
  ) {}

  /** The tally of a selection set whose fields sit at depth 1 with multiplier 1. */
  measure(set: SelectionSetNode, parent: GraphQLNamedType): Tally {
    const tally: Tally = { depth: 0, aliases: 0 };
    this.walk(set, parent, 1, tally);
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
   * like any other field (300 aliased `__typename` passed when they did not). Inside
   * introspection, depth is not counted: GraphiQL's own schema query nests 13 deep.
   */
  private walk(set: SelectionSetNode, parent: GraphQLNamedType, depth: number, tally: Tally, introspection = false): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const meta = metaField(selection.name.value, parent === this.schema.getQueryType());
        if (selection.alias) tally.aliases++;
        if (!introspection && !meta) tally.depth = Math.max(tally.depth, depth);
        const field = meta ?? (isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined);
        if (field && selection.selectionSet) {
          const inner = introspection || meta !== undefined;
          this.walk(selection.selectionSet, getNamedType(field.type), depth + 1, tally, inner);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent;
        this.walk(selection.selectionSet, type ?? parent, depth, tally, introspection);
      } else {
        const empty: Tally = { depth: 0, aliases: 0 };
        const inner = this.summarize(selection.name.value, this.summaries, empty, (f) =>
          this.measure(f.selectionSet, this.schema.getType(f.typeCondition.name.value) ?? parent),
        );
        // Its fields sit at this depth.
        if (inner.depth > 0 && !introspection) tally.depth = Math.max(tally.depth, depth - 1 + inner.depth);
        tally.aliases += inner.aliases;
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

function refusal(code: string, message: string, limit: number, actual: number, node: OperationDefinitionNode): GraphQLError {
  return new GraphQLError(message, { nodes: [node], extensions: { code, limit, actual } });
}

/** The checks of a validated document that do not depend on its variables, and its cost analysis (limits-cost.ts). */
export interface LimitAnalysis {
  errors: GraphQLError[];
  costs: OperationCost[];
}

/**
 * Abuse limits, checked on the validated document before any resolver runs and cached with it:
 * depth, aliases and root fields, each with its own code (tokens are limited by the parser
 * itself). The estimated cost depends on the request's variables: what is cached is its analysis,
 * evaluated per request (`costErrors`).
 */
export function analyseLimits(schema: GraphQLSchema, document: DocumentNode, limits: GraphQLLimits): LimitAnalysis {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const errors: GraphQLError[] = [];
  const costs: OperationCost[] = [];
  // Fragment tallies do not depend on the operation: one walker measures each fragment once.
  const walker = new Walker(fragments, schema);
  const analyser = new CostAnalyser(fragments, schema, limits);
  for (const operation of document.definitions) {
    if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(operation.operation);
    if (!root) continue;
    const { depth, aliases } = walker.measure(operation.selectionSet, root);
    const roots = walker.rootFields(operation.selectionSet);
    if (depth > limits.maxDepth)
      errors.push(
        refusal("QUERY_TOO_DEEP", `The query is nested ${depth} levels deep; at most ${limits.maxDepth} are allowed`, limits.maxDepth, depth, operation),
      );
    if (aliases > limits.maxAliases)
      errors.push(
        refusal("TOO_MANY_ALIASES", `The query uses ${aliases} aliases; at most ${limits.maxAliases} are allowed`, limits.maxAliases, aliases, operation),
      );
    if (roots > limits.maxRootFields)
      errors.push(
        refusal(
          "TOO_MANY_ROOT_FIELDS",
          `The operation selects ${roots} root fields; at most ${limits.maxRootFields} are allowed`,
          limits.maxRootFields,
          roots,
          operation,
        ),
      );
    costs.push(analyser.operation(operation, root));
  }
  return { errors, costs };
}
