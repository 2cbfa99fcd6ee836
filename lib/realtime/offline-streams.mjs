// A local serverless plugin for `serverless offline` only, listed before
// serverless-offline-dynamodb-streams. Two adaptations, both invisible to a deployed stage:
//
// 1. The stream events in serverless.yml are written for AWS (`arn: !GetAtt <Model>Table.StreamArn`);
//    the offline plugin wants a table name, and polls every 500 ms unless told otherwise. AWS's
//    config schema refuses both settings in serverless.yml, so they are set here, after validation.
//
// 2. DynamoDB Local numbers stream records globally across tables. Once another table's stream
//    gets a record, the iterator an empty GetRecords returned for this table fails with
//    TrimmedDataAccessException; the offline plugin then starts again at LATEST and the record that
//    was just written is lost. GetRecords is made to recover instead: a fresh iterator after the
//    last record read from that shard (or after the shard's content at startup).
//
// Plain JS because the Serverless CLI loads plugins itself.
import { createRequire } from "node:module";

const READ_INTERVAL_MS = 100;
const LOGICAL_SUFFIX = "Table";

function logicalIdOf(arn) {
  const target = arn?.["Fn::GetAtt"];
  const first = Array.isArray(target) ? target[0] : typeof target === "string" ? target.split(".")[0] : undefined;
  return typeof first === "string" ? first : undefined;
}

function recoverTrimmedIterators() {
  // The streams client as the offline plugin resolves it, so the patch reaches its instances.
  const require = createRequire(createRequire(import.meta.url).resolve("serverless-offline-dynamodb-streams"));
  const { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } = require("@aws-sdk/client-dynamodb-streams");
  if (DynamoDBStreamsClient.prototype.send.recoversTrimmed) return;
  const send = DynamoDBStreamsClient.prototype.send;
  const shardOf = new Map(); // iterator -> "arn|shard"
  const lastRead = new Map(); // "arn|shard" -> sequence number
  const at = (where) => {
    const [StreamArn, ShardId] = where.split("|");
    const after = lastRead.get(where);
    return new GetShardIteratorCommand({ StreamArn, ShardId, ...(after ? { ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: after } : { ShardIteratorType: "TRIM_HORIZON" }) });
  };
  async function patched(command, ...rest) {
    if (command instanceof GetShardIteratorCommand) {
      const where = `${command.input.StreamArn}|${command.input.ShardId}`;
      if (command.input.ShardIteratorType === "LATEST" && !lastRead.has(where)) {
        // What LATEST skips: recovery must resume after it, not replay it.
        let iterator = (await send.call(this, at(where))).ShardIterator;
        while (iterator) {
          const page = await send.call(this, new GetRecordsCommand({ ShardIterator: iterator }));
          const records = page.Records ?? [];
          if (records.length === 0) break;
          lastRead.set(where, records[records.length - 1].dynamodb.SequenceNumber);
          iterator = page.NextShardIterator;
        }
      }
      const out = await send.call(this, command, ...rest);
      if (out.ShardIterator) shardOf.set(out.ShardIterator, where);
      return out;
    }
    if (command instanceof GetRecordsCommand) {
      const where = shardOf.get(command.input.ShardIterator);
      shardOf.delete(command.input.ShardIterator);
      let out;
      try {
        out = await send.call(this, command, ...rest);
      } catch (error) {
        if (error?.name !== "TrimmedDataAccessException" || !where) throw error;
        const fresh = await send.call(this, at(where));
        out = await send.call(this, new GetRecordsCommand({ ...command.input, ShardIterator: fresh.ShardIterator }), ...rest);
      }
      const records = out.Records ?? [];
      if (where && records.length > 0) lastRead.set(where, records[records.length - 1].dynamodb.SequenceNumber);
      if (where && out.NextShardIterator) shardOf.set(out.NextShardIterator, where);
      return out;
    }
    return send.call(this, command, ...rest);
  }
  patched.recoversTrimmed = true;
  DynamoDBStreamsClient.prototype.send = patched;
}

export default class OfflineStreamsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    const adapt = () => this.adapt();
    this.hooks = { "offline:start:init": adapt, "offline:start": adapt };
  }

  adapt() {
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
    if (streams > 0) recoverTrimmedIterators();
  }
}
