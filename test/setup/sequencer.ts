import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The projects whose files start an `npm start` of their own on the fixed ports (vitest.config.ts): `npm test`'s and `npm run test:long`'s. */
export const SERVICE_PROJECTS: readonly string[] = ["service", "long-service"];
/** The project whose files share their worker's process, one after another, in a shuffled order. */
export const SHUFFLED_PROJECT = "unit";

/**
 * The seed of this run's shuffle: TEST_SEED replays a run's order (the seed it printed), else a new
 * one per run.
 */
export function shuffleSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.TEST_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`TEST_SEED is not a whole number: ${given}`);
    return seed;
  }
  return Date.now() % 2 ** 31;
}

/** `items` in an order drawn from `seed` (Fisher-Yates over mulberry32): one seed, one order. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** `sorted` with the files of `project` shuffled among the places they held, the others where they were. */
export function shuffleProject<T>(sorted: readonly T[], inProject: (item: T) => boolean, seed: number): T[] {
  const mixed = shuffled(sorted.filter(inProject), seed);
  let taken = 0;
  return sorted.map((item) => (inProject(item) ? (mixed[taken++] as T) : item));
}

/**
 * The files of a run in the order the workers take them. vitest's own order (groups, then projects
 * by name, then larger or longer files first) would hand the `service` files to every worker at
 * once, where all but one wait for the fixed ports (the offline lock) while the unit files queue
 * behind them. Here each service file is followed by an even share of the other files of its group:
 * one worker runs a service while the others work through unit files, and the next service comes up
 * about when the previous one ends. A wrong guess costs only a worker waiting for the lock. Under
 * `npm test` the service files are one chain file (test/e2e/own-service-chain.test.ts), which so
 * comes first; under `npm run test:long` the long ones on the fixed ports are another
 * (test/e2e/long-service-chain.test.ts).
 */
export default class ServiceSpreadingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const inShuffled = (spec: TestSpecification): boolean => spec.project.name === SHUFFLED_PROJECT;
    // The unit files in a new order each run, so that no file passes only after the ones that
    // happen to run before it (test/setup/scoped-state.ts checks what each leaves behind).
    const seed = shuffleSeed();
    if (files.filter(inShuffled).length > 1) this.ctx.logger.log(`unit files in a shuffled order, seed ${seed} (TEST_SEED=${seed} replays it)`);
    const sorted = shuffleProject(await super.sort(files), inShuffled, seed);
    const groupOf = (spec: TestSpecification): number => spec.project.config.sequence.groupOrder;
    const isService = (spec: TestSpecification): boolean => SERVICE_PROJECTS.includes(spec.project.name);
    // Groups run one after another in ascending order: keep them so, with each group's service files
    // spread among its other files (vitest's own order for those: spreading the isolated files among
    // the shared ones as well was measured slower, in npm test and in test:fast alike).
    const groups = [...new Set(sorted.map(groupOf))].sort((a, b) => a - b);
    return groups.flatMap((group) => {
      const inGroup = sorted.filter((spec) => groupOf(spec) === group);
      return spreadAmong(
        inGroup.filter(isService),
        inGroup.filter((spec) => !isService(spec)),
      );
    });
  }
}

/** `services` one by one, each followed by an equal share of `partners` (in their order); the rest last. */
export function spreadAmong<T>(services: T[], partners: T[]): T[] {
  if (services.length === 0) return [...partners];
  const share = Math.floor(partners.length / services.length);
  const out: T[] = [];
  services.forEach((service, i) => out.push(service, ...partners.slice(i * share, (i + 1) * share)));
  out.push(...partners.slice(services.length * share));
  return out;
}
