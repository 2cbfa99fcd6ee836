import type { BehaviorClass } from "./behavior.ts";
import type { Context } from "./context.ts";
import type { RelationDeclarations } from "./relations.ts";
import type { ObjectSchema } from "./schema.ts";

export type CrudAction = "create" | "read" | "update" | "delete";
/** A CRUD action, or the name of an operation declared on the model. */
export type Action = CrudAction | { operation: string };
/** `true` allows; a string denies and says why (the reason is logged, the client sees 403). */
export type Decision = true | string;

export interface IndexDeclaration {
  name: string;
  hash: string;
  range?: string;
}

/** Whether the caller may see a field of this stored record (its output form, before redaction). */
export type FieldVisibility = (ctx: Context, record: Readonly<Record<string, unknown>>) => boolean;

export interface ListLimits {
  default: number;
  max: number;
}

/**
 * The base of every domain model. A model is its JSON Schema (`schema`), its key
 * (`FRAMEWORK_PRIMARY_KEY`, `["uuid"]` unless declared: the UUID-keyed base model), its relations,
 * behaviors, indexes and operations, and a `canAct` policy that denies by default.
 */
export class Model {
  static readonly FRAMEWORK_PRIMARY_KEY: readonly string[] = ["uuid"];
  static readonly schema: ObjectSchema = { type: "object", properties: {} };
  static readonly relations: RelationDeclarations = {};
  static readonly behaviors: Record<string, BehaviorClass> = {};
  static readonly indexes: readonly IndexDeclaration[] = [];
  static readonly limits: ListLimits = { default: 100, max: 1000 };
  /** Route segment and GraphQL plural; the lowercase class name plus "s" unless given. */
  static readonly plural?: string;
  /**
   * The identity model (the sample app's User): a record created through the generic create takes
   * the current user's id as its uuid, so a logged-in identity creates its own profile only.
   */
  static readonly identity: boolean = false;
  /**
   * Fields some callers may not see, each with who may: the default `redact` removes a field for
   * the others, and every contract (OpenAPI, generated clients) marks it optional. Declare hiding
   * here rather than in an overridden `redact`, which no contract can read.
   */
  static readonly restrictedFields: Readonly<Record<string, FieldVisibility>> = {};

  /** Deny by default: a model that says nothing about permissions cannot be touched. */
  canAct(_ctx: Context, _action: Action): Decision {
    return "no policy declared";
  }

  /**
   * Removes fields the caller may not see from an outgoing copy of the record (after `__` fields and
   * behaviors are already gone). The default shows everything a readable record holds.
   */
  redact(ctx: Context, data: Record<string, unknown>): Record<string, unknown> {
    const rules = (this.constructor as ModelClass).restrictedFields;
    let out = data;
    for (const [field, visible] of Object.entries(rules)) {
      if (!(field in out) || visible(ctx, data)) continue;
      const { [field]: _hidden, ...rest } = out;
      out = rest;
    }
    return out;
  }
}

export type ModelClass = (new () => Model) & {
  readonly name: string;
  readonly FRAMEWORK_PRIMARY_KEY: readonly string[];
  readonly schema: ObjectSchema;
  readonly relations: RelationDeclarations;
  readonly behaviors: Record<string, BehaviorClass>;
  readonly indexes: readonly IndexDeclaration[];
  readonly limits: ListLimits;
  readonly plural?: string;
  readonly identity: boolean;
  readonly restrictedFields: Readonly<Record<string, FieldVisibility>>;
};
