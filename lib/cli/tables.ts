import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { Application } from "../core/application.ts";
import { authTables } from "../auth/tables.ts";
import { realtimeTables } from "../realtime/tables.ts";
import { tableDefinitions } from "../store/dynamodb-tables.ts";

/**
 * Every table the service needs: one per model, plus the WebSocket face's and the authentication
 * service's own. The same list creates the local tables (npm start, tests) and the CloudFormation
 * resources.
 */
export function serviceTables(app: Application, prefix: string): CreateTableCommandInput[] {
  return [...tableDefinitions(app, prefix), ...realtimeTables(prefix), ...authTables(prefix)];
}
