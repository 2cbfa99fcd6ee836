import {
  GraphQLIncludeDirective, GraphQLSkipDirective, Kind, getDirectiveValues, isAbstractType,
  type FieldNode, type FragmentDefinitionNode, type FragmentSpreadNode, type GraphQLObjectType, type GraphQLSchema,
  type InlineFragmentNode, type SelectionSetNode,
} from "graphql";

/** Thrown while planning when a document needs something only graphql-js's executor does. */
export class NotCompilable extends Error {}

type Conditional = FieldNode | FragmentSpreadNode | InlineFragmentNode;

export interface Collecting {
  readonly schema: GraphQLSchema;
  readonly fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  /** The request's coerced variables: only @skip/@include read them while planning. */
  readonly variables: Readonly<Record<string, unknown>>;
}

/**
 * graphql-js's rule: skipped when `@skip(if: true)`, or `@include(if: false)`. Any other directive
 * is one this executor does not know the meaning of.
 */
function included(scope: Collecting, node: Conditional): boolean {
  for (const directive of node.directives ?? []) {
    const name = directive.name.value;
    if (name !== GraphQLSkipDirective.name && name !== GraphQLIncludeDirective.name) throw new NotCompilable(`@${name}`);
  }
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, scope.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, scope.variables)?.if !== false;
}

/** Object types only: a condition on an interface or union is left to graphql-js. */
function matches(scope: Collecting, condition: FragmentDefinitionNode | InlineFragmentNode, type: GraphQLObjectType): boolean {
  if (!condition.typeCondition) return true;
  const named = scope.schema.getType(condition.typeCondition.name.value);
  if (named === type) return true;
  if (isAbstractType(named)) throw new NotCompilable("abstract type condition");
  return false;
}

function collectInto(scope: Collecting, type: GraphQLObjectType, set: SelectionSetNode, fields: Map<string, FieldNode[]>, visited: Set<string>): void {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!included(scope, selection)) continue;
      const name = selection.alias ? selection.alias.value : selection.name.value;
      const list = fields.get(name);
      if (list) list.push(selection);
      else fields.set(name, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (!included(scope, selection) || !matches(scope, selection, type)) continue;
      collectInto(scope, type, selection.selectionSet, fields, visited);
    } else {
      const name = selection.name.value;
      if (visited.has(name) || !included(scope, selection)) continue;
      visited.add(name);
      const fragment = scope.fragments[name];
      if (!fragment || !matches(scope, fragment, type)) continue;
      if (fragment.directives?.length) throw new NotCompilable(`directive on fragment ${name}`);
      collectInto(scope, type, fragment.selectionSet, fields, visited);
    }
  }
}

/**
 * The response entries of selection sets on an object type, in graphql-js's order and with its
 * merging (`collectFields` / `collectSubfields`): one list of field nodes per response name.
 */
export function collectFields(scope: Collecting, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  for (const set of sets) collectInto(scope, type, set, fields, visited);
  return fields;
}
