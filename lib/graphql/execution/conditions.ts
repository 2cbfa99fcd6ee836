import { GraphQLIncludeDirective, GraphQLSkipDirective, Kind, visit, type DocumentNode, type OperationDefinitionNode } from "graphql";

/**
 * The operation's variables that a @skip/@include of the document takes its `if` from, sorted:
 * which fields the operation collects depends on their values only, so a plan is kept per
 * combination of them. A variable of another operation cannot be used by this one (validation).
 */
export function conditionVariables(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const defined = new Set((operation.variableDefinitions ?? []).map((d) => d.variable.name.value));
  const names = new Set<string>();
  visit(document, {
    Directive(node) {
      if (node.name.value !== GraphQLSkipDirective.name && node.name.value !== GraphQLIncludeDirective.name) return;
      for (const argument of node.arguments ?? []) if (argument.value.kind === Kind.VARIABLE && defined.has(argument.value.name.value)) names.add(argument.value.name.value);
    },
  });
  return [...names].sort();
}

/**
 * The combination's key, or undefined when a value is not a boolean (null, or absent without a
 * default): graphql-js then fails the selection with its own error, so it runs the document.
 */
export function conditionKey(names: readonly string[], variables: Readonly<Record<string, unknown>>): string | undefined {
  let key = "";
  for (const name of names) {
    const value = variables[name];
    if (value === true) key += "1";
    else if (value === false) key += "0";
    else return undefined;
  }
  return key;
}
