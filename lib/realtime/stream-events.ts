import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import type { Application } from "../core/application.ts";
import type { LifecycleEvent, LifecycleKind } from "../core/events.ts";
import { keyOf } from "../core/model-info.ts";
import { servedAlike } from "../core/record-upgrade.ts";

const KINDS: Record<string, LifecycleKind> = { INSERT: "Created", MODIFY: "Updated", REMOVE: "Deleted" };

/**
 * The table a stream record comes from. AWS gives the stream ARN
 * (`arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>`); the offline streams plugin
 * gives `arn:aws:dynamodb:<region>:<account>:<name>`.
 */
export function tableOfStreamArn(arn: string): string | undefined {
  const table = /:table\/([^/]+)/.exec(arn);
  if (table) return table[1];
  const last = arn.split(":").pop();
  return last ? last : undefined;
}

type Image = Record<string, AttributeValue>;

/**
 * Stream records as the domain's lifecycle events, so that a write by any process (another
 * function, the CLI, a console edit) reaches subscribers. A stream cannot tell a patch from a
 * full update: both are `Updated`. Records of other tables (not `${prefix}<Model>`) are skipped.
 */
export function lifecycleEventsOf(app: Application, prefix: string, records: readonly DynamoDBRecord[]): LifecycleEvent[] {
  const events: LifecycleEvent[] = [];
  for (const record of records) {
    const kind = KINDS[record.eventName ?? ""];
    const table = record.eventSourceARN ? tableOfStreamArn(record.eventSourceARN) : undefined;
    if (!kind || !table?.startsWith(prefix)) continue;
    const info = app.model(table.slice(prefix.length));
    const image = kind === "Deleted" ? record.dynamodb?.OldImage : record.dynamodb?.NewImage;
    if (!info || !image) continue;
    // aws-lambda's AttributeValue and the SDK's describe the same JSON.
    const item = unmarshall(image as unknown as Image);
    const old = kind === "Updated" ? record.dynamodb?.OldImage : undefined;
    const previous = old ? { previous: unmarshall(old as unknown as Image) } : {};
    // An in-place upgrade (`webda db migrate`) rewrites a record without changing what is served.
    if (previous.previous && servedAlike(info.upgrade, previous.previous, item)) continue;
    events.push({ name: `${info.name}.${kind}`, model: info.name, kind, key: keyOf(info, item), record: item, ...previous });
  }
  return events;
}
