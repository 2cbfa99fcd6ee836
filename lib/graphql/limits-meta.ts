import { SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef, type GraphQLField } from "graphql";

/** The definitions of `__typename` (anywhere) and `__schema`/`__type` (on the query root only). */
export function metaField(name: string, onQueryRoot: boolean): GraphQLField<unknown, unknown> | undefined {
  if (name === "__typename") return TypeNameMetaFieldDef;
  if (!onQueryRoot) return undefined;
  if (name === "__schema") return SchemaMetaFieldDef;
  if (name === "__type") return TypeMetaFieldDef;
  return undefined;
}
