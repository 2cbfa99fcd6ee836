import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bundle } from "../build/bundle.ts";
import type { Figures, Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { profileCold } from "../profile/profile.ts";
import { coldEnv, coldStart } from "./spawn.ts";
import { passwordCheck } from "./password.ts";
import { AUTH, FLOOR_A, FLOOR_B, FLOOR_B_GRAPHQL, FLOOR_B_WEBSOCKET, GRAPHQL, REST, VARIANTS, WEBSOCKET, YOGA, type Variant } from "./variants.ts";

export interface Prepared {
  variant: Variant;
  bundle: string;
  event: string;
}

/** Bundles every variant with serverless.yml's options and writes its event next to it. */
export async function prepareCold(outDir: string): Promise<Prepared[]> {
  const dir = join(outDir, "cold");
  await mkdir(join(dir, "events"), { recursive: true });
  return Promise.all(
    VARIANTS.map(async (variant) => {
      const built = await bundle(variant.entry, dir);
      const event = join(dir, "events", `${variant.entry.replace(/\W+/g, "_")}.json`);
      await writeFile(event, JSON.stringify(variant.event));
      return { variant, bundle: built.file, event };
    }),
  );
}

/**
 * Fresh processes, interleaved (one of each variant per round) so that a noisy neighbour slows
 * every variant alike; one warm-up round first fills the page cache.
 */
export async function measureCold(prepared: Prepared[], runs: number): Promise<Map<Variant, number[]>> {
  const totals = new Map<Variant, number[]>(prepared.map((p) => [p.variant, []]));
  for (let round = -1; round < runs; round++) {
    for (const p of prepared) {
      const result = await coldStart(p.bundle, p.event, coldEnv());
      if (result.status !== p.variant.status) throw new Error(`${p.variant.name}: expected status ${p.variant.status}, got ${result.status}: ${result.body}`);
      if (round >= 0) totals.get(p.variant)?.push(result.total);
    }
    if (round >= 0) progress(`cold start round ${round + 1}/${runs}`);
  }
  return totals;
}

export async function coldSection(figures: Figures, options: RunOptions): Promise<Prepared[]> {
  progress("cold start: bundling functions, floors and peers with serverless.yml's esbuild options");
  const prepared = await prepareCold(options.outDir);
  const totals = await measureCold(prepared, options.coldRuns);
  const profile = (v: Variant) => async () => {
    const p = prepared.find((x) => x.variant === v);
    return p ? profileCold(p.bundle, p.event, coldEnv(), options.outDir, v.name) : [];
  };
  const measured = (v: Variant, name = v.name): Measured => ({ name, summary: summarise(totals.get(v) ?? []) });
  const section = "cold start";
  for (const v of [FLOOR_A, FLOOR_B, FLOOR_B_GRAPHQL, FLOOR_B_WEBSOCKET, YOGA]) {
    figures.add({ section, measure: v.name, unit: "ms", higherIsBetter: false, ours: measured(v), ...(v === FLOOR_A ? {} : { floor: measured(FLOOR_A, "(a)") }) });
  }
  const graphql = measured(GRAPHQL);
  const floorGraphql = measured(FLOOR_B_GRAPHQL, "(b)+graphql-js");
  const yoga = measured(YOGA, "yoga");
  figures.add({
    section, measure: GRAPHQL.name, unit: "ms", higherIsBetter: false, ours: graphql, floor: floorGraphql, peer: yoga,
    bar: { text: "<= 1.15x (b)+graphql-js", ratio: graphql.summary.median / floorGraphql.summary.median, limit: 1.15, atMost: true },
    profile: profile(GRAPHQL),
  });
  figures.add({
    section, measure: `${GRAPHQL.name} vs yoga`, unit: "ms", higherIsBetter: false, ours: graphql, peer: yoga,
    bar: { text: "< 0.8x yoga", ratio: graphql.summary.median / yoga.summary.median, limit: 0.8, atMost: true },
  });
  const rest = measured(REST);
  const floorB = measured(FLOOR_B, "(b)");
  figures.add({
    section, measure: REST.name, unit: "ms", higherIsBetter: false, ours: rest, floor: floorB,
    bar: { text: "<= 1.1x (b)", ratio: rest.summary.median / floorB.summary.median, limit: 1.1, atMost: true },
    profile: profile(REST),
    note: "answers 404: a fresh instance's memory store is empty; the route lookup, domain read and error mapping are those of a hit",
  });
  figures.add({
    section, measure: WEBSOCKET.name, unit: "ms", higherIsBetter: false, ours: measured(WEBSOCKET), floor: measured(FLOOR_B_WEBSOCKET, "(b)+management"),
    note: "a $connect without the graphql-transport-ws subprotocol (answered 400): the realtime face is built, no DynamoDB write",
  });
  const auth = measured(AUTH);
  figures.add({
    section, measure: AUTH.name, unit: "ms", higherIsBetter: false, ours: auth, floor: floorB,
    bar: { text: "<= 1.2x (b)", ratio: auth.summary.median / floorB.summary.median, limit: 1.2, atMost: true },
    profile: profile(AUTH),
    note: "an unknown refresh token, answered 401 after one read of the memory store",
  });
  figures.add(await passwordCheck(options.coldRuns));
  return prepared;
}
