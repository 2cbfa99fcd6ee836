// @ts-check
// A local serverless plugin for `serverless offline` only, listed before
// serverless-offline-dynamodb-streams. Three adaptations, all invisible to a deployed stage:
//
// 1. The stream events in serverless.yml are written for AWS (`arn: !GetAtt <Model>Table.StreamArn`);
//    the offline plugin wants a table name, and polls every 500 ms unless told otherwise. AWS's
//    config schema refuses both settings in serverless.yml, so they are set here, after validation.
//
// 2. DynamoDB Local numbers stream records globally across tables, which loses records in the
//    offline plugin: its client recovers instead (the patch: offline-patches.mjs).
//
// 3. The reads slow down while the streams are quiet, and every handler run wakes them
//    (stream-pace.mjs): reading six streams every 100 ms cost a quarter of a core at rest.
//
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { recoverTrimmedIterators, wakeStreamsAfterHandlers } from "./offline-patches.mjs";
/** @import { Serverless, ServerlessPlugin } from "../core/serverless-host.ts" */

const READ_INTERVAL_MS = 100;
const LOGICAL_SUFFIX = "Table";

/**
 * @param {unknown} arn
 * @returns {string | undefined}
 */
function logicalIdOf(arn) {
  const target = /** @type {{ "Fn::GetAtt"?: unknown } | undefined} */ (arn)?.["Fn::GetAtt"];
  const first = Array.isArray(target) ? target[0] : typeof target === "string" ? target.split(".")[0] : undefined;
  return typeof first === "string" ? first : undefined;
}

/** @implements {ServerlessPlugin} */
export default class OfflineStreamsPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    const adapt = () => this.adapt();
    this.hooks = { "offline:start:init": adapt, "offline:start": adapt };
  }

  async adapt() {
    const service = this.serverless.service;
    const prefix = service.provider?.environment?.TABLE_PREFIX ?? "";
    const resources = service.resources?.Resources ?? {};
    let streams = 0;
    for (const name of service.getAllFunctions()) {
      for (const event of service.getAllEventsInFunction(name) ?? []) {
        const stream = event.stream;
        if (!stream || typeof stream !== "object" || stream.type !== "dynamodb") continue;
        streams++;
        stream.readInterval ??= READ_INTERVAL_MS;
        if (stream.tableName) continue;
        const id = logicalIdOf(stream.arn);
        if (!id) continue;
        // The rendered resource names its table; without resources the id says `<Model>Table`.
        const declared = resources[id]?.Properties?.TableName;
        stream.tableName = typeof declared === "string" ? declared : `${prefix}${id.endsWith(LOGICAL_SUFFIX) ? id.slice(0, -LOGICAL_SUFFIX.length) : id}`;
      }
    }
    if (streams === 0) return;
    recoverTrimmedIterators();
    await wakeStreamsAfterHandlers();
  }
}
