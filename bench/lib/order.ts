/**
 * The order the bench runs things in, randomised per round from one printed seed: whatever runs
 * first or last in a round (a cooler CPU, a page cache just filled, a neighbour's burst) lands on
 * every implementation alike over the rounds, and `--seed=N` replays the same orders.
 */
export type Random = () => number;

/** mulberry32: small, fast and good enough to shuffle a handful of items. */
export function seeded(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shuffled copy (Fisher-Yates). */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
