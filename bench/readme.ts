import { readFile, writeFile } from "node:fs/promises";
import { barsTable, markdownTable } from "./lib/format.ts";
import type { Figures } from "./lib/figures.ts";

const START = "<!-- figures:start -->";
const END = "<!-- figures:end -->";

/** Replaces the figures block of bench/README.md with this run's table and command. */
export async function updateReadme(command: string, figures: Figures): Promise<void> {
  const path = "bench/README.md";
  const text = await readFile(path, "utf8");
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) return;
  const block = [
    START,
    "",
    `Produced by \`${command}\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${process.platform}/${process.arch}).`,
    "",
    "Bars (generated: a bar is met only when its ratio clears it by the spread):",
    "",
    barsTable(figures),
    "",
    "All figures:",
    "",
    markdownTable(figures),
    "",
    END,
  ].join("\n");
  await writeFile(path, `${text.slice(0, from)}${block}${text.slice(to + END.length)}`);
}
