import { getVariableValues, type DocumentNode, type ExecutionResult, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";
import { conditionKey, conditionVariables } from "./conditions.ts";
import type { OperationPlan } from "./plan.ts";
import { fragmentsOf, planOperation } from "./planner.ts";
import { Run } from "./runner.ts";

/** Combinations of @skip/@include values planned per operation; beyond, graphql-js runs the rest. */
const MAX_VARIANTS = 16;

/**
 * A valid operation of a cached document, planned on first use (once per combination of its
 * @skip/@include variables) and run per request by our executor, with the results graphql-js's
 * `execute` gives. `execute` answers undefined when the operation is not compilable: the caller
 * runs graphql-js's `execute` then.
 */
export class CompiledOperation {
  private readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  private readonly conditions: readonly string[];
  private readonly variants = new Map<string, OperationPlan | null>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly operation: OperationDefinitionNode,
  ) {
    this.fragments = fragmentsOf(document.definitions);
    this.conditions = conditionVariables(document, operation);
  }

  execute(contextValue: unknown, rawVariables: Record<string, unknown> | undefined): ExecutionResult | Promise<ExecutionResult> | undefined {
    // Declined once and for all (no condition could change that): graphql-js coerces the variables itself.
    if (this.conditions.length === 0 && this.variants.get("") === null) return undefined;
    // graphql-js's own coercion, with `execute`'s settings, so errors and defaults are its own.
    const coerced = getVariableValues(this.schema, this.operation.variableDefinitions ?? [], rawVariables ?? {}, { maxErrors: 50, hideSuggestions: false });
    if (coerced.errors) return { errors: coerced.errors };
    const variables = coerced.coerced;
    const plan = this.plan(variables);
    return plan ? new Run(plan, contextValue, variables, undefined).execute() : undefined;
  }

  private plan(variables: Record<string, unknown>): OperationPlan | undefined {
    const key = conditionKey(this.conditions, variables);
    if (key === undefined) return undefined;
    const known = this.variants.get(key);
    if (known !== undefined) return known ?? undefined;
    if (this.variants.size >= MAX_VARIANTS) return undefined;
    const plan = planOperation(this.schema, this.operation, this.fragments, variables);
    this.variants.set(key, plan ?? null);
    return plan;
  }

  /** For tests: whether the operation, with these variables, runs on a plan. */
  compilable(variables: Record<string, unknown> = {}): boolean {
    const coerced = getVariableValues(this.schema, this.operation.variableDefinitions ?? [], variables);
    return coerced.coerced !== undefined && this.plan(coerced.coerced) !== undefined;
  }
}
