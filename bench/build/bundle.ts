import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { build, type BuildOptions, type Metafile } from "esbuild";
import { esbuildOptions } from "./options.ts";
import { ROOT } from "./serverless-config.ts";

export interface Input {
  path: string;
  bytes: number;
}

export interface Bundle {
  entry: string;
  /** The .mjs file to import. */
  file: string;
  bytes: number;
  /** Bytes each input contributes to the output (after minification), largest first. */
  inputs: Input[];
}

function largestInputs(metafile: Metafile, file: string): Input[] {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(basename(file)) && !path.endsWith(".map"));
  if (!output) return [];
  return Object.entries(output[1].inputs)
    .map(([path, input]) => ({ path, bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** Bytes in the output per npm package (or `(project)` for the project's own files), largest first. */
export function byPackage(inputs: readonly Input[]): Input[] {
  const totals = new Map<string, number>();
  for (const input of inputs) {
    const at = input.path.lastIndexOf("node_modules/");
    const rest = at < 0 ? "" : input.path.slice(at + "node_modules/".length);
    const name =
      at < 0
        ? "(project)"
        : rest
            .split("/")
            .slice(0, rest.startsWith("@") ? 2 : 1)
            .join("/");
    totals.set(name, (totals.get(name) ?? 0) + input.bytes);
  }
  return [...totals].map(([path, bytes]) => ({ path, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** One function bundle, built with serverless.yml's esbuild options into `outDir/<entry dir>`. */
export async function bundle(entry: string, outDir: string, root = ROOT, overrides: BuildOptions = {}): Promise<Bundle> {
  const options = { ...esbuildOptions(root), ...overrides };
  const out = join(outDir, entry.slice(0, entry.lastIndexOf("/")));
  const result = await build({ ...options, entryPoints: [entry], outdir: out, metafile: true, logLevel: "silent" });
  const extension = (options.outExtension as Record<string, string> | undefined)?.[".js"] ?? ".js";
  const file = join(out, `${basename(entry, ".ts")}${extension}`);
  return { entry, file, bytes: (await stat(file)).size, inputs: largestInputs(result.metafile, file) };
}
