import { ratio, verdict, type Bar, type Figure, type Figures, type Measured } from "./figures.ts";

export function value(m: Measured | undefined, unit: string): string {
  if (!m) return "-";
  const v = m.summary.median;
  if (unit === "ops/s") return v >= 10_000 ? `${(v / 1000).toFixed(1)}k` : v.toFixed(0);
  if (unit === "KB") return (v / 1024).toFixed(0);
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

function times(r: number | undefined): string {
  return r === undefined ? "-" : `${r.toFixed(2)}x`;
}

const VERDICT = { met: "met", missed: "MISSED", undecided: "NOT MET (spread crosses the bar)" } as const;

function interval(b: Bar): string {
  const spread = b.spread > 0 ? ` ±${(b.spread * 100).toFixed(0)}%` : "";
  return `${b.ratio.toFixed(2)}x${spread}${b.paired ? " (paired)" : ""}`;
}

function bar(f: Figure): string {
  if (f.failed) return `FAILED (${f.failed})`;
  if (!f.bar) return "";
  return `${VERDICT[verdict(f.bar)]} (${f.bar.text}: ${interval(f.bar)})`;
}

/** One line per bar: the verdict, the ratio with its spread, and why a missed one is missed. */
export function barsTable(figures: Figures): string {
  const lines = ["| bar | result | ratio (± spread) | measured cause when not met |", "|---|---|---|---|"];
  for (const f of figures.figures) {
    if (!f.bar) continue;
    const result = f.failed ? "FAILED" : VERDICT[verdict(f.bar)];
    const cause = f.failed ?? (verdict(f.bar) === "met" ? "" : (f.cause ?? "no profile is taken for this section"));
    lines.push(`| ${f.measure}: ${f.bar.text} | ${result} | ${interval(f.bar)} | ${cause.replace(/\|/g, "\\|")} |`);
  }
  return lines.join("\n");
}

const HEADER = ["section", "measure", "ours", "unit", "spread", "floor", "vs floor", "peer", "vs peer", "bar"];

function row(f: Figure): string[] {
  return [
    f.section,
    f.measure,
    value(f.ours, f.unit),
    f.unit,
    `±${(f.ours.summary.spread * 50).toFixed(0)}% (n=${f.ours.summary.runs})`,
    f.floor ? `${f.floor.name} ${value(f.floor, f.unit)}` : "-",
    times(ratio(f.ours, f.floor)),
    f.peer ? `${f.peer.name} ${value(f.peer, f.unit)}` : "-",
    times(ratio(f.ours, f.peer)),
    bar(f),
  ];
}

/** A plain-text table for the terminal. */
export function textTable(figures: Figures): string {
  const rows = [HEADER, ...figures.figures.map(row)];
  const widths = HEADER.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  for (const gap of figures.gaps) lines.push(`not measured: ${gap.section} / ${gap.what}: ${gap.why}`);
  return lines.join("\n");
}

/** The same table in Markdown, for bench/README.md. */
export function markdownTable(figures: Figures): string {
  const escape = (cell: string) => cell.replace(/\|/g, "\\|");
  const lines = [`| ${HEADER.join(" | ")} |`, `|${HEADER.map(() => "---").join("|")}|`];
  for (const f of figures.figures) lines.push(`| ${row(f).map(escape).join(" | ")} |`);
  for (const gap of figures.gaps) lines.push(`| ${gap.section} | ${escape(gap.what)} | not measured | | | | | | | ${escape(gap.why)} |`);
  const notes = figures.figures.filter((f) => f.note).map((f) => `- ${f.section} / ${f.measure}: ${f.note}`);
  return [...lines, ...(notes.length > 0 ? ["", ...notes] : [])].join("\n");
}
