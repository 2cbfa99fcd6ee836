import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app/definition.ts";
import { seed } from "../../app/seed/data.ts";
import { serviceTables } from "../../lib/cli/tables.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";
import { runSeed } from "../../lib/local/seed-run.ts";
import { inProcess } from "../support/parts.ts";
import { runInChild } from "../support/tsx-child.ts";
import type { Invocations, Outcome } from "./events-child.ts";

/**
 * Each sample in events/ (what docs/running-locally.md hands to `serverless invoke local`), given to
 * the function serverless.yml routes it to, against the seeded sample data on DynamoDB Local: a
 * sample that asks for something the seed lacks would greet a new user with a 404.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EVENTS = join(ROOT, "events");
const CHILD = fileURLToPath(new URL("./events-child.ts", import.meta.url));
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

const samples = readdirSync(EVENTS)
  .filter((f) => f.endsWith(".json"))
  .sort();
const events = new Map(samples.map((sample) => [sample, JSON.parse(readFileSync(join(EVENTS, sample), "utf8")) as { routeKey?: string }]));

/** The module serverless.yml routes a sample to: an HTTP event by its route, else the authMigrate function's. */
function moduleOf(event: { routeKey?: string }): string {
  return event.routeKey === undefined ? "functions/migrate.ts" : handlerModule(event.routeKey);
}

// The functions read their tables and secret from the environment when they load, as in Lambda:
// each module loads in a process of its own (events-child.ts), with this environment, so a module
// another test file in this worker loaded first (with its own tables) is never the one answering.
const environment = { ...process.env, TABLE_PREFIX: prefix, APP_SECRET: "events-test-secret-".padEnd(48, "x") };
const invocations = new Map<string, Promise<Map<string, Outcome>>>();

/** What the sample's function answered: one cold start per module, its samples in turn (in name order). */
async function invoke(sample: string): Promise<unknown> {
  const module = moduleOf(events.get(sample) ?? {});
  let answers = invocations.get(module);
  if (answers === undefined) {
    const mine = samples.filter((name) => moduleOf(events.get(name) ?? {}) === module);
    const request: Invocations = { module, events: mine.map((name) => events.get(name)) };
    answers = runInChild<Outcome[]>(CHILD, request, { env: environment }).then(
      (outcomes) => new Map(mine.map((name, i) => [name, outcomes[i] ?? { error: "no answer" }])),
    );
    invocations.set(module, answers);
  }
  const outcome = (await answers).get(sample) ?? { error: "no answer" };
  if ("error" in outcome) throw new Error(`${module} threw on ${sample}: ${outcome.error}`);
  return outcome.answer;
}

beforeAll(async () => {
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

describe("events/ samples against the seeded sample", () => {
  it("has the samples the docs name", () => {
    expect(samples).toEqual(expect.arrayContaining(["version.json", "post-get.json", "auth-migrate-dry-run.json"]));
  });

  for (const sample of samples) {
    it(`${sample} answers as its function would in Lambda`, { timeout: 60_000 }, async () => {
      const event = events.get(sample) ?? {};
      if (event.routeKey === undefined) {
        // Not an HTTP event: the authMigrate function's dry run, which reports and writes nothing.
        const report = (await invoke(sample)) as { incomplete?: boolean; aborted?: unknown };
        expect(report).toMatchObject({ incomplete: false });
        expect(report.aborted).toBeUndefined();
        return;
      }
      const answer = (await invoke(sample)) as { statusCode: number; body?: string };
      // The catch-all sample shows the answer to a route that does not exist.
      const expected = sample === "unknown-route.json" ? 404 : 200;
      expect({ sample, status: answer.statusCode }, answer.body).toEqual({ sample, status: expected });
    });
  }
});
