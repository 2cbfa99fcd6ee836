import type { BehaviorClass } from "./behavior.ts";
import type { Context } from "./context.ts";
import type { RelationDeclarations } from "./relations.ts";
import type { FilterLimits } from "./query-language.ts";
import type { ObjectSchema } from "./schema.ts";

export type CrudAction = "create" | "read" | "update" | "delete";
/** A CRUD action, or the name of an operation declared on the model. */
export type Action = CrudAction | { operation: string };
/** `true` allows; a string denies and says why (the reason is logged, the client sees 403). */
export type Decision = true | string;

/**
 * The records a policy may read besides its own: those its belongs-to relations name, as stored
 * (the policy is the server's judgment: it sees fields the caller may not; `__` fields and behavior
 * state, such as a password's hash, never).
 * The policies of a page of records ask together, so a page costs one batched read per related
 * model, and a record read once is not read again in the same request.
 */
export interface Related {
  /**
   * The record the belongs-to relation `relation` names; undefined when it names none or none
   * exists. A relation the model does not declare is a programming error (thrown).
   */
  get<T extends object = Record<string, unknown>>(relation: string): Promise<T | undefined>;
}

export interface IndexDeclaration {
  name: string;
  hash: string;
  range?: string;
}

export interface ListLimits {
  default: number;
  max: number;
  /**
   * A page also ends before its records' JSON passes this many bytes (Lambda answers at most 6 MB);
   * the continuation token resumes at the first record left out.
   */
  maxBytes?: number;
  /**
   * The read budget: a list request evaluates at most this many stored records (read by the store,
   * before its filter and the read permission), `DEFAULT_READ_BUDGET` (1000) unless given. When it
   * ends before the page is full, the page is short and its continuation token resumes there.
   */
  maxRead?: number;
  /**
   * Refuse filters no key serves (they would be read by a Scan, bounded only by `maxRead`):
   * `"anonymous"` for callers without a user, `"everyone"` for all. The 400 names the fields whose
   * equality a Query can serve. A list without a filter is a plain page and always allowed.
   */
  keyedFilters?: "anonymous" | "everyone";
  /**
   * How wide a filter on this model may be (REST `q`, GraphQL `query`, subscription filters):
   * predicates, OR branches and IN values, each defaulting to `DEFAULT_FILTER_LIMITS` (200, 100,
   * 1000). Over one is a BAD_QUERY naming it, decided while parsing.
   */
  filter?: Partial<FilterLimits>;
}

/**
 * Turns a record stored under model version n into version n+1 (`upgrades[n]`): it receives a copy
 * of the record (with defaults not yet applied) and returns the upgraded record. It cannot change
 * the key or `__version`: those are carried over from the stored record whatever it returns.
 */
export type UpgradeStep = (record: Record<string, unknown>) => Record<string, unknown>;

/**
 * Who may read one field. `record` is the stored record when one record is shown; it is absent when
 * the question is "may this caller name the field in a filter or an order", which must hold for
 * every record (else a filter's result count tells what the field holds).
 */
export type FieldReader = (ctx: Context, record?: Record<string, unknown>) => boolean;

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
  /**
   * Fields not everyone who reads the record may see, with who may: the one declaration from which
   * the output redaction and the filter check both derive. Fields not named are readable with the
   * record.
   */
  static readonly fieldReaders: Readonly<Record<string, FieldReader>> = {};
  /** Route segment and GraphQL plural; the lowercase class name plus "s" unless given. */
  static readonly plural?: string;
  /**
   * The identity model (the sample app's User): a record created through the generic create takes
   * the current user's id as its uuid, so a logged-in identity creates its own profile only.
   */
  static readonly identity: boolean = false;
  /**
   * Fields only the server writes (the sample's `User.email`, set by the authentication service
   * from the signed-in identity's address): left out of the input schemas and GraphQL inputs, and a
   * create, replace or patch that names one is refused with 400 naming it.
   */
  static readonly serverOwned: readonly string[] = [];
  /**
   * The version of the records this model writes (docs/model-versions.md). Records
   * stored under an older one are served, filtered and rewritten as current: each goes through
   * `upgrades[n]` for every n from its version to this one, then takes the schema's `default`s.
   */
  static readonly version: number = 1;
  /** `upgrades[n]` turns a version-n record into version n+1; one per version below `version`. */
  static readonly upgrades: Readonly<Record<number, UpgradeStep>> = {};

  /**
   * Deny by default: a model that says nothing about permissions cannot be touched. A policy that
   * needs the records this one belongs to reads them through `related` and returns a promise.
   */
  canAct(_ctx: Context, _action: Action, _related: Related): Decision | Promise<Decision> {
    return "no policy declared";
  }

  /**
   * Removes fields the caller may not see from an outgoing copy of the record (after `__` fields,
   * behaviors and the fields `fieldReaders` hides are already gone). Prefer `fieldReaders`: what
   * only `redact` hides, the filter check cannot know of, so a filter on it would be an oracle.
   */
  redact(_ctx: Context, data: Record<string, unknown>): Record<string, unknown> {
    return data;
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
  readonly fieldReaders: Readonly<Record<string, FieldReader>>;
  readonly plural?: string;
  readonly identity: boolean;
  readonly serverOwned: readonly string[];
  readonly version?: number;
  readonly upgrades?: Readonly<Record<number, UpgradeStep>>;
};
