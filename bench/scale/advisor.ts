// `NODE_ENV=production tsx bench/scale/advisor.ts [posts]` (default 100,000): docs/storage.md's
// before and after for the sample's sparse filter. The posts of the scale section (viewCount spread
// over 0..999), read to the end of `viewCount < 10` as the service lists it (limit 100, the default
// read budget per request): before, a Scan; after, the index the advisor names for that shape,
// queried with the status the advice says to fix. Requests, items read and read units to the end.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { definition } from "../../app/index.ts";
import { Application } from "../../lib/core/application.ts";
import { indexAdvice } from "../../lib/core/filter-shapes.ts";
import { DEFAULT_READ_BUDGET } from "../../lib/core/list.ts";
import type { ModelInfo, TableShape } from "../../lib/core/model-info.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { parseQuery } from "../../lib/query/index.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import type { Cursor } from "../../lib/store/repository.ts";
import { recordCalls } from "../dynamo/recorder.ts";
import { writePosts } from "./load.ts";

const size = Number(process.argv[2] ?? 100_000);
for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
const db = await startDynamoDbLocal();
const documents = createDocumentClient(db.endpoint);
const admin = new DynamoDBClient({ endpoint: db.endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
try {
  const info = new Application(definition).model("Post") as ModelInfo;
  const sparse = parseQuery("viewCount < 10");
  const advice = indexAdvice(sparse.where as NonNullable<typeof sparse.where>, [], info.table) ?? "none";
  const after: TableShape = { ...info.table, indexes: [...info.table.indexes, { name: "by_status_viewCount", hash: "status", range: "viewCount" }] };
  const prefix = `advisor-${process.pid}-`;
  await ensureTables(admin, [tableDefinition({ ...info, table: after }, prefix)]);
  const table = `${prefix}Post`;
  await writePosts(documents, table, 0, size);
  const recorder = recordCalls(documents);
  const follow = async (shape: TableShape, q: string) => {
    const { where, orderBy } = parseQuery(q);
    const repository = new DynamoRepository(documents, table, shape);
    let next: Cursor | undefined;
    let requests = 0;
    let rows = 0;
    let empty = 0;
    recorder.reset();
    do {
      const page = await repository.list({ ...(where ? { where } : {}), orderBy, limit: 100, maxRead: DEFAULT_READ_BUDGET, ...(next ? { after: next } : {}) });
      requests++;
      rows += page.items.length;
      if (page.items.length === 0 && page.next) empty++;
      next = page.next;
    } while (next);
    const items = recorder.calls.reduce((sum, c) => sum + c.items, 0);
    const units = recorder.calls.reduce((sum, c) => sum + c.capacity, 0);
    return `${q}: ${requests} requests (${empty} empty with a token), ${rows} rows, ${items} items read, ${units.toFixed(1)} read units, ${recorder.calls.length} DynamoDB calls`;
  };
  process.stdout.write(`${size.toLocaleString("en")} posts; advice for "viewCount < ?": indexes: [${advice}]\n`);
  process.stdout.write(`before (table as declared): ${await follow(info.table, "viewCount < 10")}\n`);
  process.stdout.write(`after (by_status_viewCount): ${await follow(after, "status = 'published' AND viewCount < 10")}\n`);
} finally {
  admin.destroy();
  documents.destroy();
  await db.stop();
}
