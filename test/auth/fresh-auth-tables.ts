import { CreateTableCommand } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { app } from "../fixtures/blog/index.ts";
import { authTables } from "../../lib/auth/tables.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";

/**
 * A table prefix of its own with the authentication tables and the identity model's table: a
 * test whose outcome depends on which idents exist (the local provider's demo users keep their
 * `sub` and address from one test to the next) sees only its own rows.
 */
export async function freshAuthPrefix(): Promise<string> {
  const prefix = `${inject("tablePrefix")}fresh-${randomUUID().slice(0, 8)}-`;
  const identity = app.models().find((info) => info.cls.identity);
  if (!identity) throw new Error("no identity model");
  const definitions = [...authTables(prefix), { ...tableDefinition(identity, prefix), StreamSpecification: undefined }];
  await Promise.all(definitions.map((definition) => documentClient().send(new CreateTableCommand(definition))));
  return prefix;
}
