import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app/definition.ts";
import { seed } from "../../app/seed/data.ts";
import { serviceTables } from "../../lib/cli/tables.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { runSeed } from "../../lib/local/seed-run.ts";
import { lambdaContext } from "../support/http-events.ts";
import { inProcess } from "../support/parts.ts";

/**
 * Each sample in events/ (what docs/running-locally.md hands to `serverless invoke local`), given to
 * the function serverless.yml routes it to, against the seeded sample data on DynamoDB Local: a
 * sample that asks for something the seed lacks would greet a new user with a 404.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EVENTS = join(ROOT, "events");
const prefix = `events-${randomUUID().slice(0, 8)}-`;

/** The function module serverless.yml names for a route key, by schema-cache/functions.json and the hand-written functions. */
function handlerModule(routeKey: string): string {
  if (routeKey === "GET /graphql" || routeKey === "POST /graphql") return "functions/graphql.ts";
  // API Gateway's catch-all: the REST function answers the routes it does not know.
  if (routeKey === "$default") return "functions/rest.ts";
  const functions = JSON.parse(readFileSync(join(ROOT, "schema-cache", "functions.json"), "utf8")) as Record<
    string,
    { handler: string; events?: { httpApi?: { method: string; path: string } }[] }
  >;
  for (const fn of Object.values(functions)) {
    if (fn.events?.some((e) => e.httpApi && `${e.httpApi.method} ${e.httpApi.path}` === routeKey)) return `${fn.handler.replace(/\.handler$/, "")}.ts`;
  }
  throw new Error(`no function serves ${routeKey}`);
}

type Invoke = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

async function invoke(module: string, event: unknown): Promise<unknown> {
  const { handler } = (await import(join(ROOT, module))) as { handler: Invoke };
  return handler(event, lambdaContext());
}

const samples = readdirSync(EVENTS)
  .filter((f) => f.endsWith(".json"))
  .sort();
let restoreEnv: () => void = () => undefined;

beforeAll(async () => {
  const saved = { TABLE_PREFIX: process.env.TABLE_PREFIX, APP_SECRET: process.env.APP_SECRET };
  // The functions read their tables and secret from the environment when they load, as in Lambda.
  process.env.TABLE_PREFIX = prefix;
  process.env.APP_SECRET = "events-test-secret-".padEnd(48, "x");
  restoreEnv = () => Object.assign(process.env, saved);
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await ensureTables(client, serviceTables(createApp(), prefix));
  } finally {
    client.destroy();
  }
  await runSeed({
    // As scripts/seed.ts seeds: an application composed to validate writes and list.
    createApp: () => createApp(inProcess),
    data: seed,
    credentials: undefined,
    endpoint,
    tablePrefix: prefix,
    client: { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS },
    log: () => undefined,
  });
}, 180_000);

afterAll(() => restoreEnv());

describe("events/ samples against the seeded sample", () => {
  it("has the samples the docs name", () => {
    expect(samples).toEqual(expect.arrayContaining(["version.json", "post-get.json", "auth-migrate-dry-run.json"]));
  });

  for (const sample of samples) {
    it(`${sample} answers as its function would in Lambda`, { timeout: 60_000 }, async () => {
      const event = JSON.parse(readFileSync(join(EVENTS, sample), "utf8")) as { routeKey?: string };
      if (event.routeKey === undefined) {
        // Not an HTTP event: the authMigrate function's dry run, which reports and writes nothing.
        const report = (await invoke("functions/migrate.ts", event)) as { incomplete?: boolean; aborted?: unknown };
        expect(report).toMatchObject({ incomplete: false });
        expect(report.aborted).toBeUndefined();
        return;
      }
      const answer = (await invoke(handlerModule(event.routeKey), event)) as { statusCode: number; body?: string };
      // The catch-all sample shows the answer to a route that does not exist.
      const expected = sample === "unknown-route.json" ? 404 : 200;
      expect({ sample, status: answer.statusCode }, answer.body).toEqual({ sample, status: expected });
    });
  }
});
