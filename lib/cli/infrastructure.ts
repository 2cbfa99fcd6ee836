import type { Application } from "../core/application.ts";
import { authTables, authTtl } from "../auth/tables.ts";
import { USED_STATES_SUFFIX, USED_STATES_TTL, usedStatesTable } from "../auth/idp/used-states.ts";
import { fanoutResources, realtimeStreamEvents, streamFailureResources } from "../realtime/serverless.ts";
import { realtimeTables, realtimeTtl } from "../realtime/tables.ts";
import { tableLogicalId, tableResources } from "../store/cloudformation.ts";
import { tableDefinition } from "../store/dynamodb-tables.ts";
import type { CacheRenderer } from "./cache.ts";
import { roleMap } from "./roles.ts";

const PREFIX = "${self:custom.tablePrefix}";
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * What serverless.yml includes besides functions: every table (models', the WebSocket face's
 * and the auth service's, with TTL), each function's role (./roles.ts), and one stream event per model table.
 */
export const infrastructureCache: CacheRenderer = (app: Application) => {
  const modelTables = app.models().map((info) => ({ logicalId: tableLogicalId(info.name), definition: tableDefinition(info, PREFIX) }));
  const ttls = [...realtimeTtl, ...authTtl, { suffix: USED_STATES_SUFFIX, attribute: USED_STATES_TTL }];
  const own = [...realtimeTables(PREFIX), ...authTables(PREFIX), usedStatesTable(PREFIX)].map((definition) => {
    const suffix = (definition.TableName ?? "").slice(PREFIX.length);
    const ttl = ttls.find((t) => t.suffix === suffix)?.attribute;
    return { logicalId: tableLogicalId(suffix), definition, ...(ttl ? { ttl } : {}) };
  });
  const tables = [...modelTables, ...own];
  return {
    "resources.json": json({ Resources: { ...(tableResources(tables) as Record<string, unknown>), ...streamFailureResources(), ...fanoutResources() } }),
    "roles.json": json(roleMap(app)),
    "stream-events.json": json(realtimeStreamEvents(app)),
  };
};
