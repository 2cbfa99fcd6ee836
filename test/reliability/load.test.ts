import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { formatFigures, loadTest } from "./load.ts";
import { fanoutTest, formatFanout } from "./load-fanout.ts";

/**
 * The bounded load test of `npm run load`, sized for CI: after the ramp that grows serverless
 * offline's instance pools (load.ts says why), 2,000 requests of the mixed REST/GraphQL workload on
 * 50 connections, then 50 subscribers each receiving 50 published posts. Figures are printed; what
 * is asserted is that nothing failed, nothing was lost and nothing arrived twice.
 */
let offline: Offline | undefined;

beforeAll(async () => {
  offline = await startOffline();
});

afterAll(async () => {
  await offline?.stop();
});

describe("load against npm start", () => {
  it("answers 2,000 mixed requests on 50 connections without an error, a timeout or a non-2xx answer", async () => {
    const figures = await loadTest(offline?.url ?? "", 2_000, 50);
    console.info(formatFigures(figures));
    expect(figures.warmUp.failures).toBe(0);
    expect(figures.requests).toBeGreaterThanOrEqual(2_000);
    expect({ errors: figures.errors, non2xx: figures.non2xx, timeouts: figures.timeouts }).toEqual({ errors: 0, non2xx: 0, timeouts: 0 });
  }, 300_000);

  it("delivers every post to each of 50 subscribers exactly once", async () => {
    const figures = await fanoutTest(offline?.url ?? "", `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`, { subscribers: 50, writes: 50, concurrency: 10 });
    console.info(formatFanout(figures));
    expect(figures.expected).toBe(2_500);
    expect({
      delivered: figures.delivered,
      lost: figures.lost,
      duplicates: figures.duplicates,
      writeErrors: figures.writeErrors,
      subscriptionErrors: figures.subscriptionErrors,
    }).toEqual({ delivered: 2_500, lost: 0, duplicates: 0, writeErrors: 0, subscriptionErrors: 0 });
  }, 300_000);
});
