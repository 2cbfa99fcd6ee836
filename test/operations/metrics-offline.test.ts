import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { percentile, summarise } from "../../lib/local/metrics-summary.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { ALICE, blog, post } from "../support/blog.ts";
import { parseEmf, stdoutLinesOf } from "../support/emf.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { asServerlessOffline, withEnvironment } from "../support/offline-env.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), "metrics-"));
const file = join(dir, "metrics.jsonl");
let rest: ReturnType<typeof restHandler>;

const traceHeaderBefore = process.env._X_AMZN_TRACE_ID;

// The offline environment, the metrics to this file's own file: set for the file, put back after it.
asServerlessOffline();
withEnvironment({ METRICS_FILE: file, LOG_LEVEL: "info" });
beforeAll(() => {
  // Built once the environment is the offline one: the metrics settings are read when a function is built.
  rest = restHandler(blog(dynamoStore()));
});
afterEach(() => {
  if (traceHeaderBefore === undefined) delete process.env._X_AMZN_TRACE_ID;
  else process.env._X_AMZN_TRACE_ID = traceHeaderBefore;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stdoutOf = stdoutLinesOf;

describe("metrics under npm start (serverless offline)", () => {
  it("writes the same EMF lines to the metrics file, a readable line to the terminal, and `npm run metrics` sums them up", async () => {
    // Tracing is off (no TRACING): a trace header in the environment is not even read.
    process.env._X_AMZN_TRACE_ID = "Root=1-67891233-abcdef012345678912345678;Sampled=0";
    const slug = `offline-${randomUUID().slice(0, 8)}`;
    const out = await stdoutOf(async () => {
      await call(rest, httpEvent("POST", "/posts", { routeKey: "POST /posts", body: post(slug), headers: { "x-test-user": ALICE } }));
      await call(rest, httpEvent("GET", `/posts/${slug}`, { routeKey: "GET /posts/{slug}" }));
      await call(rest, httpEvent("GET", `/posts/${slug}-absent`, { routeKey: "GET /posts/{slug}" }));
    });
    const lines = (await readFile(file, "utf8")).trim().split("\n").map(parseEmf);
    expect(lines.map((l) => [l.Route, l.StatusClass])).toEqual([
      ["POST /posts", "2xx"],
      ["GET /posts/{slug}", "2xx"],
      ["GET /posts/{slug}", "4xx"],
    ]);
    delete process.env._X_AMZN_TRACE_ID;
    for (const line of lines) expect(line).not.toHaveProperty("traceId");
    expect(lines[0]?.DynamoDBWriteUnits).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({ DynamoDBWriteUnits: 0 });
    expect(out.filter((l) => l.startsWith("METRIC "))).toEqual([
      expect.stringMatching(/^METRIC POST \/posts 200 \d+ms dynamodb=\d+ rcu=[\d.]+ wcu=[1-9][\d.]*\n$/),
      expect.stringMatching(/^METRIC GET \/posts\/\{slug\} 200 /),
      expect.stringMatching(/^METRIC GET \/posts\/\{slug\} 404 /),
    ]);

    const summary = summarise(await readFile(file, "utf8"), 0);
    expect(summary.requests).toBe(3);
    expect(summary.routes.get("rest GET /posts/{slug}")).toMatchObject({ count: 2, classes: { "2xx": 1, "4xx": 1 } });

    const { stdout } = await run(join(root, "node_modules/.bin/tsx"), ["scripts/metrics.ts", "--minutes", "10", "--file", file], { cwd: root });
    expect(stdout).toContain("Last 10 min: 3 requests");
    expect(stdout).toMatch(/rest GET \/posts\/\{slug\}\s+2\s+1\s+1\s+0\s+[\d.]+\s+[\d.]+\s+\d+/);
    expect(stdout).toContain("Refused: 0 HTTP 429/413");
  }, 60_000);
});

describe("the summary", () => {
  const at = (t: number, extra: Record<string, unknown>) => JSON.stringify({ _aws: { Timestamp: t, CloudWatchMetrics: [] }, Service: "rest", ...extra });

  it("takes the nearest-rank percentile, as CloudWatch does over raw values", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });

  it("keeps only the window's lines and counts refusals from every face", () => {
    const text = [
      at(1_000, { Route: "GET /a", StatusClass: "2xx", status: 200, Latency: 5 }),
      at(9_000, { Route: "POST /auth/login", StatusClass: "4xx", status: 429, Latency: 3, Lockouts: 1 }),
      at(9_500, { Route: "POST /graphql", StatusClass: "4xx", status: 400, Latency: 1, GraphQLRefused: 1 }),
      '{"_aws": cut short',
    ].join("\n");
    const summary = summarise(text, 5_000);
    expect(summary.requests).toBe(2);
    expect(summary.routes.has("rest GET /a")).toBe(false);
    expect(summary.refused).toEqual({ http: 1, GraphQLRefused: 1, SubscriptionsRefused: 0, Lockouts: 1 });
    expect(summary.events.get("Lockouts")).toBe(1);
  });
});
