import { describe, expect, it } from "vitest";
import { barOn, verdict, type Measured } from "../../bench/lib/figures.ts";
import { summarise } from "../../bench/lib/stats.ts";

const side = (name: string, samples: number[]): Measured => ({ name, summary: summarise(samples), samples });

describe("a bar on two sides measured in the same rounds", () => {
  // Rounds on a noisy machine: each round is slower or faster for both sides alike, ours always
  // three quarters of the peer.
  const drift = [100, 130, 90, 160, 110, 95, 140];
  const ours = side(
    "ours",
    drift.map((d) => 0.75 * d),
  );
  const peer = side("peer", drift);

  it("reads the per-round ratios: the common drift cancels, and the bar is met", () => {
    const bar = barOn("<= 0.8x peer", ours, peer, 0.8, true);
    expect(bar.paired).toBe(true);
    expect(bar.ratio).toBeCloseTo(0.75, 10);
    expect(bar.spread).toBe(0);
    expect(verdict(bar)).toBe("met");
  });

  it("adds both sides' spreads when they were not measured in the same rounds (the drift counts twice)", () => {
    const unpaired = barOn("<= 0.8x peer", { name: "ours", summary: ours.summary }, { name: "peer", summary: peer.summary }, 0.8, true);
    expect(unpaired.paired).toBe(false);
    expect(unpaired.ratio).toBeCloseTo(0.75, 10);
    expect(unpaired.spread).toBeGreaterThan(0.1);
    expect(verdict(unpaired)).toBe("undecided");
  });

  it("still misses a bar the paired ratio does not clear, and falls back when the rounds do not line up", () => {
    const slow = side(
      "ours",
      drift.map((d, i) => (i % 2 ? 0.84 : 0.82) * d),
    );
    expect(verdict(barOn("<= 0.8x peer", slow, peer, 0.8, true))).toBe("missed");
    expect(barOn("<= 0.8x peer", side("ours", [1, 2, 3]), peer, 0.8, true).paired).toBe(false);
  });
});
