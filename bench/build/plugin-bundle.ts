import { createRequire } from "node:module";
import { join } from "node:path";
import { pluginBuildOptions } from "./options.ts";
import { ROOT } from "./serverless-config.ts";

const require = createRequire(import.meta.url);

interface Built {
  context?: { dispose(): Promise<void> };
}
interface PluginSelf {
  buildCache?: Record<string, Built>;
}

/**
 * Runs serverless-esbuild's own bundling step (what `serverless package` calls) for one entry,
 * into `outDir/.build`, so its output can be compared with ours byte for byte.
 */
export async function pluginBundle(entry: string, outDir: string, root = ROOT): Promise<string> {
  const { bundle } = require("serverless-esbuild/dist/bundle.js") as { bundle(this: unknown): Promise<void> };
  const buildOptions = pluginBuildOptions(root);
  const buildDirPath = join(outDir, ".build");
  const self: PluginSelf & Record<string, unknown> = {
    buildOptions,
    buildDirPath,
    plugins: [],
    functionEntries: [{ entry, func: { handler: entry }, functionAlias: "bench" }],
    prepare: () => undefined,
    log: { verbose: () => undefined },
    serverless: { classes: { Error } },
  };
  const cwd = process.cwd();
  // The plugin resolves entries against the working directory, as serverless runs it from the service root.
  process.chdir(root);
  try {
    await bundle.call(self);
  } finally {
    process.chdir(cwd);
    for (const built of Object.values(self.buildCache ?? {})) await built.context?.dispose();
  }
  return join(buildDirPath, `${entry.slice(0, entry.lastIndexOf("."))}${String(buildOptions.outputFileExtension ?? ".js")}`);
}
