import type { Application } from "../core/application.ts";
import { MailerService } from "../auth/mail/mailer.ts";
import { authTables, authTtl } from "../auth/tables.ts";
import { USED_STATES_SUFFIX, USED_STATES_TTL, usedStatesTable } from "../auth/idp/used-states.ts";
import { manageConnectionsStatement, realtimeStreamEvents, streamFailureResources } from "../realtime/serverless.ts";
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
  const ttls = [...realtimeTtl, ...authTtl, { suffix: USED_STATES_SUFFIX, attribute: USED_STATES_TTL }];
  const own = [...realtimeTables(PREFIX), ...authTables(PREFIX), usedStatesTable(PREFIX)].map((definition) => {
    const suffix = (definition.TableName ?? "").slice(PREFIX.length);
    const ttl = ttls.find((t) => t.suffix === suffix)?.attribute;
    return { logicalId: tableLogicalId(suffix), definition, ...(ttl ? { ttl } : {}) };
  });
  const tables = [...modelTables, ...own];
  return {
    "resources.json": json({ Resources: { ...(tableResources(tables) as Record<string, unknown>), ...streamFailureResources() } }),
    "iam.json": json([...tableIamStatements(tables.map((t) => t.logicalId)), manageConnectionsStatement(), ...mailStatements(app)]),
    "stream-events.json": json(realtimeStreamEvents(app)),
  };
};


/** The auth mails go through SES when the application configures a mailer. */
function mailStatements(app: Application): Record<string, unknown>[] {
  const mailers = app.services().flatMap((e) => (e.service instanceof MailerService ? [e.service] : []));
  if (mailers.length === 0) return [];
  // SES authorises a send on the sender's identity: the From address or its domain, never any identity.
  const identities = [...new Set(mailers.flatMap((m) => {
    const from = m.options.from.trim().toLowerCase();
    return [from, from.slice(from.lastIndexOf("@") + 1)];
  }))];
  return [{
    Effect: "Allow",
    Action: ["ses:SendEmail"],
    Resource: identities.map((identity) => ({ "Fn::Sub": `arn:\${AWS::Partition}:ses:\${AWS::Region}:\${AWS::AccountId}:identity/${identity}` })),
  }];
}
