import {
  GraphQLString, isLeafType, isListType, isNonNullType, isObjectType, Kind, TypeNameMetaFieldDef,
  type FieldNode, type FragmentDefinitionNode, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { planArguments } from "./arguments.ts";
import { collectFields, NotCompilable, type Collecting } from "./collect.ts";
import { serializesWithoutNull } from "./leaves.ts";
import type { FieldPlan, OperationPlan, ValuePlan } from "./plan.ts";

/**
 * Beyond this many planned fields the plan is not made (graphql-js runs the document): the
 * validation limits already bound a document's cost, this bounds the plan's memory whatever they are.
 */
const MAX_FIELDS = 10_000;

const NO_ARGUMENTS = Object.freeze({});

class Planner {
  private slots = 0;
  private planned = 0;

  constructor(private readonly scope: Collecting) {}

  /** The plans of the response entries of an object type's selection sets, in response order. */
  fields(type: GraphQLObjectType, sets: readonly OperationDefinitionNode["selectionSet"][]): FieldPlan[] {
    const plans: FieldPlan[] = [];
    for (const [responseName, nodes] of collectFields(this.scope, type, sets)) {
      // A plain object's `__proto__` key would set its prototype instead of holding the value.
      if (responseName === "__proto__") throw new NotCompilable("__proto__ alias");
      if (++this.planned > MAX_FIELDS) throw new NotCompilable("too many fields");
      plans.push(this.field(type, responseName, nodes));
    }
    return plans;
  }

  private field(parentType: GraphQLObjectType, responseName: string, nodes: FieldNode[]): FieldPlan {
    const node = nodes[0] as FieldNode;
    const fieldName = node.name.value;
    const base = { responseName, fieldName, nodes, parentType };
    if (fieldName === "__typename") {
      // graphql-js resolves it to the parent type's name through String, which passes it unchanged.
      const value: ValuePlan = { kind: "nonNull", of: { kind: "leaf", type: GraphQLString } };
      const def = TypeNameMetaFieldDef as FieldPlan["def"];
      return { ...base, def, resolve: undefined, args: { fixed: NO_ARGUMENTS }, value, nonNull: true, plainLeaf: false, constant: parentType.name };
    }
    // `__schema`, `__type`: introspection stays with graphql-js.
    if (fieldName.startsWith("__")) throw new NotCompilable(fieldName);
    const def = parentType.getFields()[fieldName];
    if (!def) throw new NotCompilable(`unknown field ${fieldName}`);
    const args = planArguments(def as FieldPlan["def"], node, () => this.slots++);
    const value = this.value(def.type, nodes);
    const leaf = value.kind === "leaf" || (value.kind === "nonNull" && value.of.kind === "leaf");
    return {
      ...base,
      def: def as FieldPlan["def"],
      resolve: def.resolve as FieldPlan["resolve"],
      args,
      value,
      nonNull: isNonNullType(def.type),
      plainLeaf: leaf && !def.resolve && "fixed" in args,
    };
  }

  private value(type: GraphQLOutputType, nodes: FieldNode[]): ValuePlan {
    if (isNonNullType(type)) return { kind: "nonNull", of: this.value(type.ofType, nodes) };
    if (isListType(type)) return { kind: "list", of: this.value(type.ofType, nodes) };
    if (isLeafType(type)) {
      if (!serializesWithoutNull(type)) throw new NotCompilable(`leaf type ${type.name}`);
      return { kind: "leaf", type };
    }
    if (isObjectType(type)) {
      if (type.isTypeOf) throw new NotCompilable(`isTypeOf on ${type.name}`);
      const sets = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      return { kind: "object", type, fields: this.fields(type, sets) };
    }
    throw new NotCompilable(`abstract type ${type.name}`);
  }

  get slotCount(): number {
    return this.slots;
  }
}

/**
 * The plan of an operation for the given variables' @skip/@include values, or undefined when the
 * operation needs something only graphql-js's executor does (introspection, abstract types,
 * directives other than @skip/@include, subscriptions, unusual scalars).
 */
export function planOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  variables: Readonly<Record<string, unknown>>,
): OperationPlan | undefined {
  if (operation.operation === "subscription" || operation.directives?.length) return undefined;
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return undefined;
  const planner = new Planner({ schema, fragments, variables });
  try {
    const fields = planner.fields(rootType, [operation.selectionSet]);
    return { schema, operation, fragments, rootType, fields, serial: operation.operation === "mutation", slots: planner.slotCount };
  } catch {
    // NotCompilable, or anything else planning met: graphql-js runs the document and reports it.
    return undefined;
  }
}

/** The document's fragments by name, as graphql-js hands them to resolvers (`info.fragments`). */
export function fragmentsOf(definitions: readonly { kind: Kind }[]): Record<string, FragmentDefinitionNode> {
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null) as Record<string, FragmentDefinitionNode>;
  for (const definition of definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      const fragment = definition as FragmentDefinitionNode;
      fragments[fragment.name.value] = fragment;
    }
  }
  return fragments;
}
