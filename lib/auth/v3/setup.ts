import type { Application } from "../../core/application.ts";
import type { MigrationTables } from "./migrate.ts";

/** `${prefix}auth-idents` (lib/auth/CONTRACT.md). */
export const IDENTS_TABLE_SUFFIX = "auth-idents";

/** The tables a migration works on, for an application and a table prefix. */
export function migrationTables(app: Application, prefix: string): MigrationTables {
  const identity = app.models().find((info) => info.cls.identity);
  if (!identity) throw new Error(`the application '${app.name}' declares no identity model (static identity = true): there are no users to migrate`);
  return { idents: `${prefix}${IDENTS_TABLE_SUFFIX}`, users: `${prefix}${identity.name}`, userKey: identity.table.key.hash };
}
