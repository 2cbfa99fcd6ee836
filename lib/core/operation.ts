import type { TObject, TSchema } from "@sinclair/typebox";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface OperationOptions {
  /** Parameters by name, as a JSON Schema object; validated before the method runs. */
  input?: TObject;
  /** The return value's schema: documents GraphQL/OpenAPI output. */
  output?: TSchema;
  /** REST exposure: method (default PUT) and custom path, or false to hide the route. */
  rest?: { method?: HttpMethod; path?: string } | false;
  /** false hides the operation from the GraphQL schema. */
  graphql?: false;
  /**
   * HTTP statuses of the domain errors the method itself may raise or let through (a record it
   * loads may be missing: 404), beyond those the framework raises around every call (invalid
   * parameters, the policy, a missing target record). The contracts list them; omitted, the
   * method may raise any domain error (`DOMAIN_ERROR_STATUSES`).
   */
  errors?: readonly number[];
}

/** Every status a domain error carries: what an operation that declares no `errors` may raise. */
export const DOMAIN_ERROR_STATUSES: readonly number[] = [400, 401, 403, 404, 409, 412, 429, 503];

export interface OperationDefinition extends OperationOptions {
  /** The method name on the class. */
  name: string;
  /** A static operation acts on the model as a whole and takes no key. */
  isStatic: boolean;
}

const declared = new WeakMap<object, OperationDefinition[]>();

/**
 * Declares a model or service method as an operation exposed by the faces. TypeScript types
 * vanish before the handler runs, hence the runtime `input`/`output` schemas.
 */
export function Operation(options: OperationOptions = {}) {
  return function (target: object, name: string, _descriptor: PropertyDescriptor): void {
    const isStatic = typeof target === "function";
    const owner = isStatic ? target : (target as { constructor: object }).constructor;
    const list = declared.get(owner) ?? [];
    declared.set(owner, list);
    list.push({ ...options, name, isStatic });
  };
}

/** Operations declared on a class and on its ancestors; a subclass redeclaring a name wins. */
export function operationsOf(cls: object): OperationDefinition[] {
  const byName = new Map<string, OperationDefinition>();
  const chain: object[] = [];
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  for (const c of chain) for (const op of declared.get(c) ?? []) byName.set(op.name, op);
  return [...byName.values()];
}
