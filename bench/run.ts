import { mkdir, writeFile } from "node:fs/promises";
import { coldSection } from "./cold/section.ts";
import { coldSecretsSection } from "./cold/secrets.ts";
import { buildChoicesSection } from "./build/choices.ts";
import { bundleSection } from "./build/section.ts";
import { serverlessConfig } from "./build/serverless-config.ts";
import { dynamoSection } from "./dynamo/section.ts";
import { fanoutSection } from "./fanout/section.ts";
import { fanoutShardedSection } from "./fanout/sharded.ts";
import { instructionsSection } from "./instructions/section.ts";
import { Figures, met } from "./lib/figures.ts";
import { markdownTable, textTable } from "./lib/format.ts";
import { runOptions, type RunOptions } from "./lib/options.ts";
import { progress } from "./lib/progress.ts";
import { metricsWritersSection } from "./metrics-writers/section.ts";
import { migrationSection } from "./migration.ts";
import { updateReadme } from "./readme.ts";
import { scaleSection } from "./scale/section.ts";
import { tracingSection } from "./tracing/section.ts";
import { warmSection } from "./warm/section.ts";

type Section = (figures: Figures, options: RunOptions) => Promise<unknown>;

/** The four largest self-time shares by package or file, as the bars table's "cause" cell. */
function causeOf(profile: string[]): string {
  const from = profile.indexOf("self time by package or file:");
  const top = profile.slice(from + 1, from + 5).map((l) => l.trim().replace(/\s+/, " ").replace(`${process.cwd()}/`, ""));
  return `profile, self time: ${top.join("; ")}`;
}

const SECTIONS: [string, Section][] = [
  ["size", bundleSection],
  ["cold", coldSection],
  ["cold-secrets", coldSecretsSection],
  ["warm", warmSection],
  ["tracing", tracingSection],
  ["instructions", instructionsSection],
  ["metrics-writers", metricsWritersSection],
  ["build-choices", buildChoicesSection],
  ["dynamodb", dynamoSection],
  ["fanout", fanoutSection],
  ["fanout-sharded", fanoutShardedSection],
  ["migration", migrationSection],
  ["scale", scaleSection],
];

const options = runOptions(process.argv.slice(2));
const unknown = [...options.only, ...options.skip].filter((name) => !SECTIONS.some(([section]) => section === name));
if (unknown.length > 0) {
  progress(`no such section: ${unknown.join(", ")} (sections: ${SECTIONS.map(([name]) => name).join(", ")})`);
  process.exit(2);
}
// Cold starts and instruction counts are the runtime's own: measured on the Node major the
// functions are deployed on (provider.runtime), unless --any-node asks for a comparison.
const runtime = serverlessConfig().provider.runtime;
const deployedMajor = /^nodejs(\d+)\.x$/.exec(runtime)?.[1];
if (deployedMajor !== process.versions.node.split(".")[0] && !options.anyNode) {
  progress(
    `Node ${process.version} runs this bench, the functions run ${runtime}: put Node ${deployedMajor} first on PATH (.ci/run fetches it), or pass --any-node for a comparison`,
  );
  process.exit(2);
}
const figures = new Figures();
const started = performance.now();
for (const [name, section] of SECTIONS) {
  if ((options.only.length > 0 && !options.only.includes(name)) || options.skip.includes(name)) continue;
  const at = performance.now();
  await section(figures, options);
  progress(`${name} done in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  // A long run that dies later (a full machine, a killed session) keeps what it measured so far.
  await mkdir(options.outDir, { recursive: true });
  await writeFile(`${options.outDir}/partial.md`, `Sections done: ${name} and those before it\n\n${markdownTable(figures)}\n`);
}

// Where a bar is missed, the profile that shows why (a full run only: profiling takes a while).
for (const figure of figures.figures) {
  if (!figure.bar || figure.failed || met(figure.bar) || !figure.profile) continue;
  if (options.quick) {
    figures.detail(`${figure.section} / ${figure.measure}: bar missed; profile skipped in --quick`, []);
    continue;
  }
  progress(`profiling ${figure.section} / ${figure.measure} (bar not met)`);
  const lines = await figure.profile();
  figure.cause = causeOf(lines);
  figures.detail(`CPU profile, ${figure.section} / ${figure.measure} (bar not met: ${figure.bar.text}, ${figure.bar.ratio.toFixed(2)}x)`, lines);
}

const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
for (const { title, lines } of figures.details) process.stdout.write(`\n${title}\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
process.stdout.write(`\nSummary (${command}; medians of repeated runs, spread = half the interquartile range)\n\n${textTable(figures)}\n`);
await mkdir(options.outDir, { recursive: true });
await writeFile(`${options.outDir}/latest.md`, `${markdownTable(figures)}\n`);
// A full run rewrites the figures block; a run of some sections only when --readme asks.
if (!options.quick && ((options.only.length === 0 && options.skip.length === 0) || options.readme)) await updateReadme(command, figures);
progress(`finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
// DynamoDB Local's JVM and SDK sockets are closed by their sections; nothing else should hold the loop.
// A failed row (an operation that answered the wrong status) fails the run, CI's --quick included.
const failed = figures.figures.filter((f) => f.failed);
for (const f of failed) progress(`FAILED: ${f.section} / ${f.measure}: ${f.failed}`);
process.exit(failed.length > 0 ? 1 : 0);
