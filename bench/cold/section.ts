import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { bundle } from "../build/bundle.ts";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { seeded, shuffled } from "../lib/order.ts";
import { summarise } from "../lib/stats.ts";
import { profileCold } from "../profile/profile.ts";
import { withCompileCache } from "./compile-cache.ts";
import { coldEnv, coldStart, coldStartCore } from "./spawn.ts";
import { passwordCheck } from "./password.ts";
import { startStubDynamoDb } from "./stub-dynamodb.ts";
import { startOtlpSink } from "../lib/otlp-sink.ts";
import {
  AUTH,
  baselineVariants,
  checkAnswer,
  FLOOR_A,
  FLOOR_B,
  FLOOR_B_GRAPHQL,
  FLOOR_B_NO_CALL,
  FLOOR_B_WEBSOCKET,
  GRAPHQL,
  LOGIN,
  MIGRATE,
  REST,
  REST_ALL,
  STREAM,
  tracedGraphql,
  VARIANTS,
  WEBSOCKET,
  YOGA,
  type Variant,
} from "./variants.ts";

/** The variants measured with and without V8's compile cache: the functions with bars, their floors, yoga. */
export const CACHED: Variant[] = [GRAPHQL, FLOOR_B_GRAPHQL, REST, FLOOR_B, YOGA];

export interface Prepared {
  variant: Variant;
  bundle: string;
  event: string;
}

/** Bundles every variant with serverless.yml's options and writes its event next to it. */
export async function prepareCold(outDir: string, variants: Variant[] = VARIANTS): Promise<Prepared[]> {
  const dir = join(outDir, "cold");
  await mkdir(join(dir, "events"), { recursive: true });
  return Promise.all(
    variants.map(async (variant) => {
      const built = await bundle(variant.entry, variant.root ? resolve(dir, "before") : dir, variant.root);
      const event = join(dir, "events", `${variant.entry.replace(/\W+/g, "_")}.json`);
      await writeFile(event, JSON.stringify(variant.event));
      return { variant, bundle: built.file, event };
    }),
  );
}

/**
 * Fresh processes, interleaved (one of each variant per round) so that a noisy neighbour slows
 * every variant alike, in an order shuffled every round from `seed`; one warm-up round first fills
 * the page cache.
 */
export async function measureCold(prepared: Prepared[], runs: number, endpoint: string, seed = 0, cpu?: number): Promise<Map<Variant, number[]>> {
  const totals = new Map<Variant, number[]>(prepared.map((p) => [p.variant, []]));
  const random = seeded(seed);
  for (let round = -1; round < runs; round++) {
    for (const p of shuffled(prepared, random)) {
      const result = await coldStart(p.bundle, p.event, coldEnv(endpoint, p.variant.env), { cpu });
      checkAnswer(p.variant, result.status, result.body);
      if (round >= 0) totals.get(p.variant)?.push(result.total);
    }
    if (round >= 0) progress(`cold start round ${round + 1}/${runs}`);
  }
  return totals;
}

export async function coldSection(figures: Figures, options: RunOptions): Promise<Prepared[]> {
  progress("cold start: bundling functions, floors and peers with serverless.yml's esbuild options");
  const before = options.baseline ? baselineVariants(options.baseline) : [];
  // X-Ray's OTLP endpoint for the traced variant: a loopback HTTP server that takes the spans and counts them.
  const sink = await startOtlpSink();
  const traced = tracedGraphql(sink.endpoint);
  const prepared = await prepareCold(options.outDir, [...VARIANTS, traced, ...before]);
  // Stays up for the whole section: the profiles of missed bars are taken later, against it too.
  const stub = await startStubDynamoDb();
  // The A/B of V8's compile cache shipped in the package (lib/cli/compile-cache/): the functions
  // with bars, their floors and yoga, each also with its cache, in the same rounds.
  const cachedPrepared = await Promise.all(CACHED.map((v) => withCompileCache(prepared.find((p) => p.variant === v) as Prepared, stub.endpoint)));
  const cachedOf = new Map(CACHED.map((v, i) => [v, (cachedPrepared[i] as Prepared).variant]));
  const cpu = await coldStartCore();
  progress(
    `cold start: ${options.coldRuns} rounds, variants in a random order each round (seed ${options.seed}; --seed=${options.seed} replays it), ${cpu === undefined ? "unpinned (no taskset here)" : `each process on core ${cpu} (taskset)`}`,
  );
  const totals = await measureCold([...prepared, ...cachedPrepared], options.coldRuns, stub.endpoint, options.seed, cpu);
  const profile = (v: Variant) => async () => {
    const p = [...prepared, ...cachedPrepared].find((x) => x.variant === v);
    if (!p) return [];
    const restarted = await startStubDynamoDb();
    try {
      return await profileCold(p.bundle, p.event, coldEnv(restarted.endpoint, v.env), options.outDir, v.name);
    } finally {
      await restarted.close();
    }
  };
  await stub.close();
  await sink.close();
  const measured = (v: Variant, name = v.name): Measured => ({ name, summary: summarise(totals.get(v) ?? []), samples: totals.get(v) ?? [] });
  const section = "cold start";
  for (const v of [FLOOR_A, FLOOR_B, FLOOR_B_NO_CALL, FLOOR_B_GRAPHQL, FLOOR_B_WEBSOCKET, YOGA]) {
    figures.add({
      section,
      measure: v.name,
      unit: "ms",
      higherIsBetter: false,
      ours: measured(v),
      ...(v === FLOOR_A ? {} : { floor: measured(FLOOR_A, "(a)") }),
    });
  }
  const graphql = measured(GRAPHQL);
  const floorGraphql = measured(FLOOR_B_GRAPHQL, "(b)+graphql-js");
  const yoga = measured(YOGA, "yoga");
  figures.add({
    section,
    measure: GRAPHQL.name,
    unit: "ms",
    higherIsBetter: false,
    ours: graphql,
    floor: floorGraphql,
    peer: yoga,
    bar: barOn("<= 1.05x (b)+graphql-js, no compile cache", graphql, floorGraphql, 1.05, true),
    profile: profile(GRAPHQL),
  });
  figures.add({
    section,
    measure: `${GRAPHQL.name} vs yoga`,
    unit: "ms",
    higherIsBetter: false,
    ours: graphql,
    peer: yoga,
    bar: barOn("<= 0.65x yoga (built as the function is), no compile cache", graphql, yoga, 0.65, true),
    profile: profile(GRAPHQL),
  });
  const rest = measured(REST);
  const floorB = measured(FLOOR_B, "(b)");
  figures.add({
    section,
    measure: REST.name,
    unit: "ms",
    higherIsBetter: false,
    ours: rest,
    floor: floorB,
    bar: barOn("<= 1.05x (b), no compile cache", rest, floorB, 1.05, true),
    profile: profile(REST),
    note: "DynamoDB store configured (client built, one GetItem to a loopback stub that finds nothing, answered 404): the route lookup, domain read and error mapping are those of a hit",
  });
  for (const v of before) {
    const now = v.now;
    const floor = now === GRAPHQL ? floorGraphql : floorB;
    figures.add({
      section,
      measure: v.name,
      unit: "ms",
      higherIsBetter: false,
      ours: measured(v),
      floor,
      peer: measured(now, "now"),
      note: `bundled from ${v.root ?? "?"} (the baseline checkout), measured in the same interleaved rounds; vs peer = before / now`,
    });
  }
  figures.add({
    section,
    measure: WEBSOCKET.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(WEBSOCKET),
    floor: measured(FLOOR_B_WEBSOCKET, "(b)+management"),
    note: "a $connect without the graphql-transport-ws subprotocol (answered 400): the realtime face is built, no DynamoDB write",
  });
  const auth = measured(AUTH);
  figures.add({
    section,
    measure: AUTH.name,
    unit: "ms",
    higherIsBetter: false,
    ours: auth,
    floor: floorB,
    bar: barOn("<= 1.2x (b)", auth, floorB, 1.2, true),
    profile: profile(AUTH),
    note: "an unknown refresh token, answered 401 after one read of the (stub) refresh table",
  });
  // Every other function kind, each against floor (b) from the same rounds: no bar, the cost of
  // what each carries beyond the floor, reported.
  figures.add({ section, measure: `${GRAPHQL.name} vs floor (b)`, unit: "ms", higherIsBetter: false, ours: graphql, floor: floorB });
  figures.add({ section, measure: `${WEBSOCKET.name} vs floor (b)`, unit: "ms", higherIsBetter: false, ours: measured(WEBSOCKET), floor: floorB });
  figures.add({
    section,
    measure: REST_ALL.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(REST_ALL),
    floor: floorB,
    note: "the function of every model route without its own (writes, queries), answering the same read as the route function",
  });
  figures.add({
    section,
    measure: LOGIN.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(LOGIN),
    floor: floorB,
    note: "one lookup (the stub finds nothing), then a password verify against a dummy hash at the default scrypt cost, so an unknown address costs what a known one does: the password check row below is most of it",
  });
  figures.add({
    section,
    measure: STREAM.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(STREAM),
    floor: floorB,
    note: "Post.Created from the record, its subscribers looked up (the stub has none)",
  });
  figures.add({
    section,
    measure: MIGRATE.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(MIGRATE),
    floor: floorB,
    note: "the v3 auth migration's dry run over empty (stub) tables",
  });
  figures.add({
    section,
    measure: traced.name,
    unit: "ms",
    higherIsBetter: false,
    ours: measured(traced),
    floor: measured(GRAPHQL, "tracing off"),
    note: `--param tracing=true: TRACING set, the invocation sampled, its span and its DynamoDB call's exported over OTLP/HTTP to a loopback receiver before it answers (${sink.received()} spans received over the section)`,
  });
  // The compile cache: each side with it against itself without, then the bars with it on both sides.
  const withCache = (v: Variant, name?: string) => measured(cachedOf.get(v) as Variant, name);
  for (const v of CACHED) {
    figures.add({
      section,
      measure: `compile cache: ${v.name}`,
      unit: "ms",
      higherIsBetter: false,
      ours: withCache(v, "with cache"),
      floor: measured(v, "without"),
      note: "A/B: the same bundle with NODE_COMPILE_CACHE at a cache its own first start filled (import and request), same rounds",
    });
  }
  const graphqlCached = withCache(GRAPHQL);
  const yogaCached = withCache(YOGA, "yoga with cache");
  const floorGraphqlCached = withCache(FLOOR_B_GRAPHQL, "(b)+graphql-js with cache");
  const restCached = withCache(REST);
  const floorBCached = withCache(FLOOR_B, "(b) with cache");
  figures.add({
    section,
    measure: graphqlCached.name,
    unit: "ms",
    higherIsBetter: false,
    ours: graphqlCached,
    floor: floorGraphqlCached,
    peer: yogaCached,
    bar: barOn("<= 1.05x (b)+graphql-js, both with compile cache", graphqlCached, floorGraphqlCached, 1.05, true),
    profile: profile(cachedOf.get(GRAPHQL) as Variant),
  });
  figures.add({
    section,
    measure: `${graphqlCached.name} vs yoga`,
    unit: "ms",
    higherIsBetter: false,
    ours: graphqlCached,
    peer: yogaCached,
    bar: barOn("<= 0.65x yoga, both with compile cache", graphqlCached, yogaCached, 0.65, true),
  });
  figures.add({
    section,
    measure: restCached.name,
    unit: "ms",
    higherIsBetter: false,
    ours: restCached,
    floor: floorBCached,
    bar: barOn("<= 1.05x (b), both with compile cache", restCached, floorBCached, 1.05, true),
    profile: profile(cachedOf.get(REST) as Variant),
  });
  figures.add(await passwordCheck(options.coldRuns));
  return prepared;
}
