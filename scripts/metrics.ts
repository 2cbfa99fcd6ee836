// `npm run metrics [-- --minutes N]`: a summary of the metric lines `npm start` wrote in the last
// minutes (docs/operating.md, "Under npm start").
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { localDataDir } from "../lib/core/local-secret.ts";
import { render, summarise } from "../lib/local/metrics-summary.ts";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "5" }, file: { type: "string" } } });
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  process.stderr.write("--minutes takes a positive number\n");
  process.exit(2);
}
const file = values.file ?? process.env.METRICS_FILE ?? join(localDataDir(), "metrics.jsonl");
let text = "";
try {
  text = await readFile(file, "utf8");
} catch {
  process.stdout.write(`No metric lines yet (${file}): run \`npm start\` and send it a few requests.\n`);
  process.exit(0);
}
process.stdout.write(`${render(summarise(text, Date.now() - minutes * 60_000), minutes)}\n`);
