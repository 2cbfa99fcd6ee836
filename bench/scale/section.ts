import { randomBytes } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { definition } from "../../app/index.ts";
import { Application } from "../../lib/core/application.ts";
import { DEFAULT_READ_BUDGET } from "../../lib/core/list.ts";
import { startDynamoDbLocal } from "../../lib/local/dynamodb-local.ts";
import { localAwsEnv } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinitions, tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { httpEvent, lambdaContext } from "../../test/support/http-events.ts";
import { recordCalls } from "../dynamo/recorder.ts";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { amplificationRows } from "./amplification.ts";
import { RARE_AUTHOR, writePosts } from "./load.ts";
import { inProcess } from "../../test/support/parts.ts";

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

/** The three requests of the issue, each one anonymous `PUT /posts` as a client sends it. */
const REQUESTS = [
  // No post matches: without a read budget this read the whole table.
  { name: "unmatched filter", body: { q: "title = 'nothing at all'", limit: 10 }, flat: true },
  // Equality on an indexed attribute (by_author): a Query that finds the author's three posts.
  { name: "selective indexed query", body: { q: `author = '${RARE_AUTHOR}'`, limit: 10 }, flat: false },
  { name: "plain page", body: { limit: 10 }, flat: true },
] as const;

interface Cost {
  latency: number[];
  calls: number;
  items: number;
  capacity: number;
  status: number;
  results: number;
  token: boolean;
}

const rows = (n: number) => n.toLocaleString("en");

/** Runs `body` `repeats` times (after one unrecorded run): latencies, and the last run's DynamoDB cost. */
async function measure(rest: Handler, recorder: ReturnType<typeof recordCalls>, body: object, repeats: number): Promise<Cost> {
  const latency: number[] = [];
  let cost: Omit<Cost, "latency"> = { calls: 0, items: 0, capacity: 0, status: 0, results: 0, token: false };
  for (let run = 0; run <= repeats; run++) {
    recorder.reset();
    const started = performance.now();
    const answer = await rest(httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body }), lambdaContext());
    const elapsed = performance.now() - started;
    if (run > 0) latency.push(elapsed);
    const page = JSON.parse(answer.body ?? "{}") as { results?: unknown[]; continuationToken?: string | null };
    cost = {
      calls: recorder.calls.length,
      items: recorder.calls.reduce((sum, c) => sum + c.items, 0),
      capacity: recorder.calls.reduce((sum, c) => sum + c.capacity, 0),
      status: answer.statusCode,
      results: page.results?.length ?? 0,
      token: typeof page.continuationToken === "string",
    };
  }
  return { latency, ...cost };
}

const one = (name: string, value: number): Measured => ({ name, summary: summarise([value]) });

/**
 * The scale section: one posts table in DynamoDB Local grown to each size in turn (1,000, 10,000,
 * 100,000; `--quick`: 1,000, 2,000), and at each size the latency, DynamoDB calls, items evaluated
 * and consumed capacity of an unmatched filter, a selective indexed query and a plain page, through
 * the real REST handler. Bars: the unmatched filter's and the page's items read and capacity at
 * each larger size stay within 1.5x of the smallest size's. Then, on the largest table, the read
 * amplification of dense and sparse filters followed page by page (amplification.ts).
 */
export async function scaleSection(figures: Figures, options: RunOptions): Promise<void> {
  progress("scale: starting DynamoDB Local");
  for (const [name, value] of Object.entries(localAwsEnv())) process.env[name] ??= value;
  // Short pages carry continuation tokens, which the application seals with its secret.
  process.env.APP_SECRET ??= randomBytes(32).toString("hex");
  // Hundreds of requests: their access lines would bury the report (read once, at the first line).
  process.env.LOG_LEVEL ??= "warn";
  const db = await startDynamoDbLocal();
  const documents = createDocumentClient(db.endpoint);
  const admin = new DynamoDBClient({ endpoint: db.endpoint, region: process.env.AWS_REGION ?? "us-east-1" });
  try {
    const prefix = `scale-${process.pid}-`;
    const app = new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
    await ensureTables(admin, tableDefinitions(app, prefix));
    const recorder = recordCalls(documents);
    const rest = restHandler(app) as unknown as Handler;
    const table = tableName(prefix, "Post");
    const measured = new Map<string, Cost>();
    const lines: string[] = [];
    let size = 0;
    for (const target of options.scaleSizes) {
      await writePosts(documents, table, size, target);
      size = target;
      for (const request of REQUESTS) {
        progress(`scale: ${request.name} on ${rows(size)} posts`);
        const cost = await measure(rest, recorder, request.body, options.scaleRepeats);
        measured.set(`${request.name}@${size}`, cost);
        const latency = summarise(cost.latency);
        const smallest = options.scaleSizes[0] as number;
        const base = measured.get(`${request.name}@${smallest}`) as Cost;
        const failed = cost.status !== 200 ? `status ${cost.status}, expected 200` : undefined;
        const note = `${cost.calls} DynamoDB calls, ${cost.items} items read, ${cost.capacity} CU; ${cost.results} results${cost.token ? ", continuation token" : ""}`;
        figures.add({
          section: "scale",
          measure: `${request.name}, ${rows(size)} posts: latency`,
          unit: "ms",
          higherIsBetter: false,
          ours: { name: "ours", summary: latency },
          ...(size !== smallest ? { floor: { name: `${rows(smallest)} posts`, summary: summarise(base.latency) } } : {}),
          ...(failed ? { failed } : {}),
          note,
        });
        if (request.flat && size !== smallest) {
          for (const [what, unit, pick] of [
            ["items read", "items", (c: Cost) => c.items],
            ["consumed capacity", "CU", (c: Cost) => c.capacity],
          ] as const) {
            const ours = one("ours", pick(cost));
            const floor = one(`${rows(smallest)} posts`, pick(base));
            figures.add({
              section: "scale",
              measure: `${request.name}, ${rows(size)} posts: ${what}`,
              unit,
              higherIsBetter: false,
              ours,
              floor,
              bar: barOn(`<= 1.5x at ${rows(smallest)} posts`, ours, floor, 1.5, true),
              ...(failed ? { failed } : {}),
              cause: `${note} (read budget ${DEFAULT_READ_BUDGET} items per list)`,
              note,
            });
          }
        }
        lines.push(`${`${rows(size)} posts`.padEnd(14)} ${request.name.padEnd(24)} status ${cost.status}  median ${latency.median.toFixed(1)} ms  ${note}`);
      }
    }
    // On the largest table only: each row follows a listing over many pages.
    const amplification: string[] = [];
    await amplificationRows(figures, rest, recorder, size, options.quick ? 15 : 40, amplification);
    figures.detail(`Scale: read amplification, filters on viewCount followed page by page on ${rows(size)} posts (items read per row returned)`, amplification);
    figures.detail(`Scale: one request per row against a posts table of each size (DynamoDB Local, read budget ${DEFAULT_READ_BUDGET} items per list)`, lines);
  } finally {
    admin.destroy();
    documents.destroy();
    await db.stop();
  }
}
