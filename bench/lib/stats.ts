export interface Summary {
  median: number;
  /** Interquartile range over the median: how much repeated runs disagree. */
  spread: number;
  runs: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low);
}

export function summarise(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  return { median, spread: median === 0 ? 0 : (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / median, runs: values.length };
}
