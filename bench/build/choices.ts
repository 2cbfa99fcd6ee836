import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BuildOptions, Plugin } from "esbuild";
import { app } from "../../app/index.ts";
import { VALIDATORS_COMPILE, validatorsModule } from "../../lib/cli/validators.ts";
import { measureCold, type Prepared } from "../cold/section.ts";
import { coldEnv, coldStartCore } from "../cold/spawn.ts";
import { startStubDynamoDb } from "../cold/stub-dynamodb.ts";
import { GRAPHQL, type Variant } from "../cold/variants.ts";
import { callgrindAvailable, countInstructions } from "../instructions/callgrind.ts";
import { UNDER_CALLGRIND } from "../instructions/section.ts";
import type { Figures, Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { bundle } from "./bundle.ts";

const SECTION = "build choices";

interface Choice {
  name: string;
  overrides: BuildOptions;
}

/** The build with `schema-cache/validators.mjs` replaced by `file` (the other way of compiling them). */
function validatorsFrom(file: string): Plugin {
  return {
    name: "validators-from",
    setup(build) {
      build.onResolve({ filter: /schema-cache\/validators\.mjs$/ }, () => ({ path: resolve(file) }));
    },
  };
}

/** serverless.yml's options as shipped, against each alternative, on the GraphQL function. */
const SHIPPED: Choice = {
  name: `as shipped (source map linked, node:http by getBuiltinModule, validators ${VALIDATORS_COMPILE})`,
  overrides: {},
};
/** The way of compiling validators the functions do not ship, built for its A/B row. */
const OTHER_COMPILE = VALIDATORS_COMPILE === "eager" ? "lazy" : "eager";
function alternatives(dir: string): Choice[] {
  return [
    { name: "source map inside the bundle (sourcemap: inline)", overrides: { sourcemap: "inline" } },
    // Without serverless.yml's alias: the AWS SDK's `import … from "node:http"` as esbuild writes it.
    { name: "node:http by ES import (no alias: its facade loads undici)", overrides: { alias: {} } },
    { name: `validators compiled ${OTHER_COMPILE}`, overrides: { plugins: [validatorsFrom(join(dir, `validators-${OTHER_COMPILE}.mjs`))] } },
  ];
}

/**
 * The bundling choices serverless.yml makes, each an A/B on the GraphQL function's cold start:
 * timed (whole cold starts: fresh processes pinned to one core, interleaved rounds) and counted
 * under callgrind (the bundle's import).
 * A choice that does not build is a gap, with esbuild's reason.
 */
export async function buildChoicesSection(figures: Figures, options: RunOptions): Promise<void> {
  const dir = join(options.outDir, "choices");
  await mkdir(join(dir, "events"), { recursive: true });
  const event = join(dir, "events", "graphql.json");
  await writeFile(event, JSON.stringify(GRAPHQL.event));
  // Generated beside the bundles, inside the project, so its imports of ajv's helpers resolve.
  await writeFile(join(dir, `validators-${OTHER_COMPILE}.mjs`), validatorsModule(app, OTHER_COMPILE));
  const prepared: Prepared[] = [];
  for (const [i, choice] of [SHIPPED, ...alternatives(dir)].entries()) {
    const built = await bundle(GRAPHQL.entry, join(dir, String(i)), undefined, choice.overrides);
    prepared.push({ variant: { ...GRAPHQL, name: choice.name }, bundle: built.file, event });
  }
  // CommonJS: the handlers initialise at the top level with `await` (composition, schema), which
  // esbuild cannot write as CommonJS; the attempt's message is the row.
  try {
    await bundle(GRAPHQL.entry, join(dir, "cjs"), undefined, { format: "cjs", banner: {}, outExtension: { ".js": ".cjs" } });
    figures.gap(SECTION, "format: CommonJS", "built: no row yet (add it to alternatives())");
  } catch (error) {
    figures.gap(SECTION, "format: CommonJS vs ESM", `does not build: ${(error as Error).message.split("\n").slice(1, 2).join(" ").trim()}`);
  }
  const stub = await startStubDynamoDb();
  try {
    const cpu = await coldStartCore();
    progress(`build choices: ${options.coldRuns} timed rounds ${cpu === undefined ? "unpinned" : `on core ${cpu}`}`);
    const timed = await measureCold(prepared, options.coldRuns, stub.endpoint, options.seed, cpu);
    const counted = new Map<Variant, number[]>(prepared.map((p) => [p.variant, []]));
    const counting = await callgrindAvailable();
    const rounds = counting ? (options.quick ? 1 : 3) : 0;
    for (let round = 0; round < rounds; round++) {
      for (const p of prepared) {
        // The import only (where the choices differ: what V8 reads and compiles), no request: a
        // loaded machine can leave a request under callgrind past its invocation's deadline.
        const { parts } = await countInstructions(
          ["--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(p.bundle).href)})`],
          coldEnv(stub.endpoint, UNDER_CALLGRIND),
        );
        counted.get(p.variant)?.push(parts.reduce((a, b) => a + b, 0) / 1e6);
      }
      progress(`build choices: counted round ${round + 1}/${rounds}`);
    }
    const of = (source: Map<Variant, number[]>, v: Variant, name: string): Measured => ({
      name,
      summary: summarise(source.get(v) ?? []),
      samples: source.get(v) ?? [],
    });
    const shipped = (prepared[0] as Prepared).variant;
    for (const p of prepared.slice(1)) {
      figures.add({
        section: SECTION,
        measure: `${p.variant.name}, timed`,
        unit: "ms",
        higherIsBetter: false,
        ours: of(timed, p.variant, "alternative"),
        floor: of(timed, shipped, "as shipped"),
      });
      if (rounds > 0)
        figures.add({
          section: SECTION,
          measure: `${p.variant.name}, counted (import only)`,
          unit: "M instructions",
          higherIsBetter: false,
          ours: of(counted, p.variant, "alternative"),
          floor: of(counted, shipped, "as shipped"),
        });
    }
  } finally {
    await stub.close();
  }
}
