import type { FragmentDefinitionNode, GraphQLResolveInfo, GraphQLSchema, OperationDefinitionNode } from "graphql";
import type { FieldPlan, OperationPlan } from "./plan.ts";

export interface RunScope {
  readonly plan: OperationPlan;
  readonly rootValue: unknown;
  readonly variables: Record<string, unknown>;
}

/**
 * The fourth resolver argument. None of our resolvers reads it (crud.ts, relations.ts,
 * operations.ts and the default resolver's function properties take source, args and context),
 * but a resolver added later may: this gives everything graphql-js's does, read from the plan on
 * demand, for one small allocation per resolver call instead of graphql-js's ten-field object.
 */
export class ResolveInfo implements GraphQLResolveInfo {
  constructor(
    private readonly field: FieldPlan,
    private readonly scope: RunScope,
    readonly path: GraphQLResolveInfo["path"],
  ) {}

  get fieldName(): string {
    return this.field.fieldName;
  }

  get fieldNodes(): GraphQLResolveInfo["fieldNodes"] {
    return this.field.nodes;
  }

  get returnType(): GraphQLResolveInfo["returnType"] {
    return this.field.def.type;
  }

  get parentType(): GraphQLResolveInfo["parentType"] {
    return this.field.parentType;
  }

  get schema(): GraphQLSchema {
    return this.scope.plan.schema;
  }

  get fragments(): Record<string, FragmentDefinitionNode> {
    return this.scope.plan.fragments;
  }

  get rootValue(): unknown {
    return this.scope.rootValue;
  }

  get operation(): OperationDefinitionNode {
    return this.scope.plan.operation;
  }

  get variableValues(): Record<string, unknown> {
    return this.scope.variables;
  }
}
