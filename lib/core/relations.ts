import type { CrudAction, ModelClass } from "./model.ts";

/**
 * Permission a child takes from its parent: for each action on the child, the action the caller
 * must be allowed on the parent record as well (`{ read: "read", create: "update" }`: reading the
 * child needs reading the parent, creating it needs the right to change the parent). A missing
 * parent allows nothing.
 */
export type ParentRequirements = Partial<Record<CrudAction, CrudAction>>;

/**
 * Relations are declared with thunks so that models may refer to each other across modules
 * whatever the import order.
 */
export interface BelongsTo {
  kind: "belongsTo";
  target: () => ModelClass;
  /** The attribute of this model holding the related key (a plain string). */
  field: string;
  /** Set by the server from the current user on create (e.g. Post.author); never client input. */
  fromCurrentUser: boolean;
  /** What the caller must be allowed on the related record to act on this one. */
  requires?: ParentRequirements;
  /**
   * The sort key of the index this relation's field gets (`by_<field>`): `project = 'x' ORDER BY
   * createdAt` is then a Query of that index. A field of the schema, `createdAt` or `updatedAt`;
   * the model's key field unless given.
   */
  sortKey?: string;
}

export interface Contains {
  kind: "contains";
  target: () => ModelClass;
  /**
   * The child's attributes holding this model's key, one per key field in key order: the child
   * attribute that points back at a one-field key, both parts of a composite one.
   */
  fields: readonly string[];
  /** The first of `fields`: the partition key of a child index, by which children are read. */
  field: string;
}

export interface ManyToMany {
  kind: "manyToMany";
  target: () => ModelClass;
  through: () => ModelClass;
  /** Attributes of the join model holding this model's key, one per key field in key order. */
  fromFields: readonly string[];
  /** The first of `fromFields`: the partition key (of the join table or an index) join rows are read by. */
  from: string;
  /** Attribute of the join model holding the target's key. */
  to: string;
  /** Targets one parent shows at most (the `limit` argument's default and maximum). */
  limits: { default: number; max: number };
}

/** A many-to-many list's page unless declared: small enough to nest under a page of parents. */
export const MANY_TO_MANY_LIMITS = { default: 25, max: 100 };

export type Relation = BelongsTo | Contains | ManyToMany;

export function belongsTo(
  target: () => ModelClass,
  options: { field?: string; fromCurrentUser?: boolean; requires?: ParentRequirements; sortKey?: string } = {},
): Omit<BelongsTo, "field"> & { field?: string } {
  return {
    kind: "belongsTo",
    target,
    field: options.field,
    fromCurrentUser: options.fromCurrentUser ?? false,
    ...(options.requires ? { requires: options.requires } : {}),
    ...(options.sortKey ? { sortKey: options.sortKey } : {}),
  };
}

/** `fields`: the child attribute pointing back at this model, or one per field of a composite key. */
export function contains(target: () => ModelClass, fields: string | readonly string[]): Contains {
  const all = typeof fields === "string" ? [fields] : [...fields];
  return { kind: "contains", target, fields: all, field: all[0] ?? "" };
}

export function manyToMany(
  target: () => ModelClass,
  options: { through: () => ModelClass; from: string | readonly string[]; to: string; limits?: { default: number; max: number } },
): ManyToMany {
  const fromFields = typeof options.from === "string" ? [options.from] : [...options.from];
  return {
    kind: "manyToMany",
    target,
    through: options.through,
    fromFields,
    from: fromFields[0] ?? "",
    to: options.to,
    limits: options.limits ?? MANY_TO_MANY_LIMITS,
  };
}

export type RelationDeclarations = Record<string, Relation | (Omit<BelongsTo, "field"> & { field?: string })>;

/** Resolves defaults (a belongs-to's attribute is named after the relation unless told otherwise). */
export function normalizeRelations(declared: RelationDeclarations): Record<string, Relation> {
  const out: Record<string, Relation> = {};
  for (const [name, relation] of Object.entries(declared)) {
    out[name] = relation.kind === "belongsTo" ? { ...relation, field: relation.field ?? name } : relation;
  }
  return out;
}
