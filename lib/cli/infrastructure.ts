import type { Application } from "../core/application.ts";
import { authTables, authTtl } from "../auth/tables.ts";
import { manageConnectionsStatement, realtimeStreamEvents } from "../realtime/serverless.ts";
import { realtimeTables, realtimeTtl } from "../realtime/tables.ts";
import { tableIamStatements, tableLogicalId, tableResources } from "../store/cloudformation.ts";
import { tableDefinition } from "../store/dynamodb-tables.ts";
import type { CacheRenderer } from "./cache.ts";

const PREFIX = "${self:custom.tablePrefix}";
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * What serverless.yml includes besides functions: every table (models', the WebSocket face's
 * and the auth service's, with TTL), the least-privilege statements on them, and one stream event per model table.
 */
export const infrastructureCache: CacheRenderer = (app: Application) => {
  const modelTables = app.models().map((info) => ({ logicalId: tableLogicalId(info.name), definition: tableDefinition(info, PREFIX) }));
  const ttls = [...realtimeTtl, ...authTtl];
  const own = [...realtimeTables(PREFIX), ...authTables(PREFIX)].map((definition) => {
    const suffix = (definition.TableName ?? "").slice(PREFIX.length);
    const ttl = ttls.find((t) => t.suffix === suffix)?.attribute;
    return { logicalId: tableLogicalId(suffix), definition, ...(ttl ? { ttl } : {}) };
  });
  const tables = [...modelTables, ...own];
  return {
    "resources.json": json({ Resources: tableResources(tables) }),
    "iam.json": json([...tableIamStatements(tables.map((t) => t.logicalId)), manageConnectionsStatement()]),
    "stream-events.json": json(realtimeStreamEvents(app)),
  };
};

