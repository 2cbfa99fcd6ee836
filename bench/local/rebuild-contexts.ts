// What lib/local borrows serverless-esbuild's `buildCache` for (lib/local/README.md, "Borrowed
// internals"): live reload rebuilds a bundle with the esbuild context serverless-esbuild bundled it
// with, which keeps esbuild's parse of every unchanged file, rather than with a fresh context.
// For each entry, in alternating rounds: a fresh context's first build, then a rebuild of that
// same (now warm) context, with the options `serverless package` bundles with. Not part of
// `npm run bench` (no section of its own); prints medians. Usage:
// npx tsx bench/local/rebuild-contexts.ts [--rounds N] [entries...]
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { esbuildOptions } from "../build/options.ts";
import { ROOT } from "../build/serverless-config.ts";

// The esbuild serverless-esbuild bundles with.
const esbuild = createRequire(createRequire(import.meta.url).resolve("serverless-esbuild"))("esbuild") as typeof import("esbuild");
const { values, positionals } = parseArgs({ options: { rounds: { type: "string", default: "5" } }, allowPositionals: true });
const rounds = Number(values.rounds);
const entries = positionals.length > 0 ? positionals : ["functions/rest.ts", "functions/rest-read.ts", "functions/graphql.ts"];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const out = mkdtempSync(join(tmpdir(), "rebuild-contexts-"));
try {
  for (const entry of entries) {
    const fresh: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < rounds; i++) {
      let at = performance.now();
      const context = await esbuild.context({ ...esbuildOptions(), entryPoints: [join(ROOT, entry)], outdir: out, logLevel: "silent" });
      await context.rebuild();
      fresh.push(performance.now() - at);
      at = performance.now();
      await context.rebuild();
      warm.push(performance.now() - at);
      await context.dispose();
    }
    const f = median(fresh);
    const w = median(warm);
    process.stdout.write(
      `${entry}: fresh context ${f.toFixed(0)} ms, warm context ${w.toFixed(0)} ms, fresh / warm ${(f / w).toFixed(2)}x (medians of ${rounds}; load average ${loadavg()[0]?.toFixed(1)})\n`,
    );
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
