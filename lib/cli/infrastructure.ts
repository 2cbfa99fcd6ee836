import type { Application } from "../core/application.ts";
import { manageConnectionsStatement, realtimeStreamEvents, streamFailureResources } from "../realtime/serverless.ts";
import { realtimeTables, realtimeTtl } from "../realtime/tables.ts";
import { tableIamStatements, tableLogicalId, tableResources } from "../store/cloudformation.ts";
import { tableDefinition } from "../store/dynamodb-tables.ts";
import type { CacheRenderer } from "./cache.ts";

const PREFIX = "${self:custom.tablePrefix}";
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * What serverless.yml includes besides functions: every table (models and the WebSocket face's,
 * with TTL), the least-privilege statements on them, and one stream event per model table.
 */
export const infrastructureCache: CacheRenderer = (app: Application) => {
  const modelTables = app.models().map((info) => ({ logicalId: tableLogicalId(info.name), definition: tableDefinition(info, PREFIX) }));
  const realtime = realtimeTables(PREFIX).map((definition) => {
    const suffix = (definition.TableName ?? "").slice(PREFIX.length);
    const ttl = realtimeTtl.find((t) => t.suffix === suffix)?.attribute;
    return { logicalId: tableLogicalId(suffix), definition, ...(ttl ? { ttl } : {}) };
  });
  const tables = [...modelTables, ...realtime];
  return {
    "resources.json": json({ Resources: { ...(tableResources(tables) as Record<string, unknown>), ...streamFailureResources() } }),
    "iam.json": json([...tableIamStatements(tables.map((t) => t.logicalId)), manageConnectionsStatement()]),
    "stream-events.json": json(realtimeStreamEvents(app)),
  };
};

