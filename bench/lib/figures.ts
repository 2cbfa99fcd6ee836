import type { Summary } from "./stats.ts";

/** A measured value; for throughput higher is better, for time and size lower is better. */
export interface Measured {
  name: string;
  summary: Summary;
}

export interface Bar {
  /** What the bar says, e.g. "<= 1.15x floor (b)+graphql-js". */
  text: string;
  /** The measured ratio the bar is about, and its limit. */
  ratio: number;
  limit: number;
  /** Whether the ratio must stay at or below the limit (time, size) or reach it (throughput). */
  atMost: boolean;
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
}

export function met(bar: Bar): boolean {
  return bar.atMost ? bar.ratio <= bar.limit : bar.ratio >= bar.limit;
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
