import { BREAK, TypeInfo, TypeNameMetaFieldDef, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from "graphql";

/**
 * Whether executing `document` reads nothing but the delivered value: every field below the
 * Subscription root resolves with graphql's default resolver (a property of its parent) or is
 * `__typename`, so no resolver consults the context (a relation's loaders read as the caller).
 * The root fields are the generated `<Model>`/`<Models>`, which return the payload as given
 * (graphql/subscriptions.ts). Such a document's result is a function of (document, variables,
 * delivered value): subscribers who are shown the same value may share one execution.
 */
export function readsOnlyThePayload(schema: GraphQLSchema, document: DocumentNode): boolean {
  const root = schema.getSubscriptionType();
  if (!root) return false;
  const typeInfo = new TypeInfo(schema);
  let pure = true;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        if (typeInfo.getParentType() === root) return undefined;
        const definition = typeInfo.getFieldDef();
        if (definition === TypeNameMetaFieldDef || (definition && definition.resolve === undefined)) return undefined;
        pure = false;
        return BREAK;
      },
    }),
  );
  return pure;
}

function isPlain(value: unknown): boolean {
  if (value === null || value === undefined || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return true;
  if (typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * The delivered value as text that two values share only if GraphQL renders them alike: plain JSON
 * data only (objects, arrays, strings, finite numbers, booleans, null; an absent property and an
 * undefined one both render null). Anything else (a Set, a Date, a class instance, NaN, a bigint)
 * gives undefined, and that subscriber's value is executed on its own.
 */
export function plainValueKey(value: unknown): string | undefined {
  let plain = true;
  // The holder's own property, not `inner`: JSON.stringify has already applied any toJSON to `inner`.
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, inner: unknown) {
    if (isPlain(this[key])) return inner;
    plain = false;
    return undefined;
  });
  return plain ? text : undefined;
}
