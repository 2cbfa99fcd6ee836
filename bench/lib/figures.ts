import { summarise, type Summary } from "./stats.ts";

/** A measured value; for throughput higher is better, for time and size lower is better. */
export interface Measured {
  name: string;
  summary: Summary;
  /**
   * The value of each round, where the section measures every side once per round in a shuffled
   * order (cold start, warm): two sides' samples at the same index ran side by side.
   */
  samples?: readonly number[];
}

export interface Bar {
  /** What the bar says, e.g. "<= 1.15x floor (b)+graphql-js". */
  text: string;
  /** The measured ratio the bar is about, and its limit. */
  ratio: number;
  limit: number;
  /** Whether the ratio must stay at or below the limit (time, size) or reach it (throughput). */
  atMost: boolean;
  /**
   * How far the ratio may be off, relative: half the interquartile range over the median. Of the
   * per-round ratios when both sides ran in the same rounds (paired: a slow round slows both, and
   * cancels out of its ratio), else of each side, added. A bar is met only when the ratio clears
   * it by that much.
   */
  spread: number;
  /** Whether ratio and spread come from per-round ratios. */
  paired: boolean;
}

/** Per-round ratios of two sides measured in the same rounds, or undefined when they were not. */
function roundRatios(ours: Measured, against: Measured): number[] | undefined {
  const a = ours.samples;
  const b = against.samples;
  if (!a || !b || a.length !== b.length || a.length < 3) return undefined;
  return a.map((value, i) => value / (b[i] as number));
}

/** A bar on `ours / against`: paired per round where both sides ran in the same rounds. */
export function barOn(text: string, ours: Measured, against: Measured | number, limit: number, atMost: boolean): Bar {
  const ratios = typeof against === "number" ? undefined : roundRatios(ours, against);
  if (ratios) {
    const summary = summarise(ratios);
    return { text, ratio: summary.median, limit, atMost, spread: summary.spread / 2, paired: true };
  }
  const denominator = typeof against === "number" ? against : against.summary.median;
  const spread = ours.summary.spread / 2 + (typeof against === "number" ? 0 : against.summary.spread / 2);
  return { text, ratio: ours.summary.median / denominator, limit, atMost, spread, paired: false };
}

export type Verdict = "met" | "missed" | "undecided";

/** met: even the unfavourable end of the spread clears the bar; undecided: the spread crosses it. */
export function verdict(bar: Bar): Verdict {
  const worst = bar.atMost ? bar.ratio * (1 + bar.spread) : bar.ratio * (1 - bar.spread);
  const best = bar.atMost ? bar.ratio * (1 - bar.spread) : bar.ratio * (1 + bar.spread);
  const clears = (r: number) => (bar.atMost ? r <= bar.limit : r >= bar.limit);
  return clears(worst) ? "met" : clears(best) ? "undecided" : "missed";
}

export interface Figure {
  section: string;
  measure: string;
  unit: string;
  higherIsBetter: boolean;
  ours: Measured;
  floor?: Measured;
  peer?: Measured;
  bar?: Bar;
  note?: string;
  /** Summarised CPU profile of ours, taken when the bar is missed (full runs only). */
  profile?: () => Promise<string[]>;
  /** Why the figure is not a result (e.g. the operation answered the wrong status): the row fails. */
  failed?: string;
  /** For a bar not met: the largest costs in its profile (full runs), written beside the verdict. */
  cause?: string;
}

/** A bar whose spread crosses it is not met. */
export function met(bar: Bar): boolean {
  return verdict(bar) === "met";
}

export function ratio(ours: Measured, other: Measured | undefined): number | undefined {
  return other ? ours.summary.median / other.summary.median : undefined;
}

/** Everything measured in this run, in the order it was measured, plus what could not be. */
export class Figures {
  readonly figures: Figure[] = [];
  readonly gaps: { section: string; what: string; why: string }[] = [];
  /** Supporting lines printed under the table (largest inputs, DynamoDB calls, profiles). */
  readonly details: { title: string; lines: string[] }[] = [];

  add(figure: Figure): Figure {
    this.figures.push(figure);
    return figure;
  }

  detail(title: string, lines: string[]): void {
    this.details.push({ title, lines });
  }

  gap(section: string, what: string, why: string): void {
    this.gaps.push({ section, what, why });
  }
}
