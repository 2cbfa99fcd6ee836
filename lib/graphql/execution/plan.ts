import type { FieldNode, FragmentDefinitionNode, GraphQLField, GraphQLFieldResolver, GraphQLLeafType, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode } from "graphql";

/** How a value of a field's type is completed; worked out once per field of a plan. */
export type ValuePlan =
  | { readonly kind: "nonNull"; readonly of: ValuePlan }
  | { readonly kind: "list"; readonly of: ValuePlan }
  | { readonly kind: "leaf"; readonly type: GraphQLLeafType }
  | { readonly kind: "object"; readonly type: GraphQLObjectType; readonly fields: readonly FieldPlan[] };

/**
 * The arguments of one field: `fixed` when they hold no variable and only primitives (coerced once
 * when planned, shared, frozen); else coerced per request (`slot` in the run's cache) when the
 * coerced values are primitives, or per call as graphql-js does.
 */
export type ArgsPlan = { readonly fixed: Readonly<Record<string, unknown>> } | { readonly slot: number };

/** One response entry of a selection set on an object type (the field nodes merged under its name). */
export interface FieldPlan {
  readonly responseName: string;
  readonly fieldName: string;
  readonly nodes: readonly FieldNode[];
  readonly parentType: GraphQLObjectType;
  readonly def: GraphQLField<unknown, unknown>;
  /** Undefined: graphql-js's default resolver (a property read, a function property called). */
  readonly resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  readonly args: ArgsPlan;
  readonly value: ValuePlan;
  /** The field's type is non-null: an error goes to the parent instead of nulling the field. */
  readonly nonNull: boolean;
  /** A leaf with the default resolver and fixed arguments: read and serialised without a resolver call. */
  readonly plainLeaf: boolean;
  /** `__typename`: its value, known when planned. */
  readonly constant?: string;
}

/** An operation's plan for one combination of its @skip/@include conditions. */
export interface OperationPlan {
  readonly schema: GraphQLSchema;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  readonly rootType: GraphQLObjectType;
  readonly fields: readonly FieldPlan[];
  readonly serial: boolean;
  /** How many fields have per-request arguments (the run's cache size). */
  readonly slots: number;
}
