import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EsbuildBuilds } from "../../lib/local/esbuild-builds.mjs";
import { checkServerlessEsbuild } from "../../lib/local/serverless-esbuild-instance.mjs";
import { serverlessEsbuildFor, type PluginHooks } from "../support/serverless-esbuild-service.ts";
import { answerParent, described } from "../support/tsx-child.ts";

/**
 * test/local/borrowed.test.ts's child: serverless-esbuild bundling the one-function service, in a
 * process started in the service's folder, as Serverless runs. serverless-esbuild names each entry
 * relative to the working directory, and esbuild's service process keeps the folder it was started
 * in (the working directory when esbuild loads): in a test worker, shared by other files, neither
 * can be the service's. What it saw goes back to the test, which asserts on it.
 */

export interface BundleChecks {
  serviceDir: string;
}

export interface BundleObservations {
  /** The build cache: its context for the entry, then what a rebuild through it wrote. */
  buildCache: { error?: string; rebuildIsFunction?: boolean; rebuiltBundle?: string };
  /** The recorder in serverless-esbuild's `plugins` option: the build it saw. */
  recorder: { error?: string; recording?: boolean; options?: Record<string, unknown>; inputs?: string[]; outputs?: string[] };
}

/** serverless-esbuild bundling through a public hook of its own (`serverless run`'s: bundle, no offline). */
async function bundled(plugin: PluginHooks): Promise<void> {
  await plugin.hooks["before:run:run"]?.();
}

async function buildCache(serviceDir: string): Promise<BundleObservations["buildCache"]> {
  const plugin = serverlessEsbuildFor(serviceDir, new EsbuildBuilds());
  await plugin.hooks.initialize?.();
  const esbuild = checkServerlessEsbuild(plugin);
  await bundled(plugin);
  // Live reload rebuilds with the context serverless-esbuild keeps per entry.
  const context = esbuild.buildCache["functions/fn.ts"]?.context as { rebuild: () => Promise<unknown>; dispose: () => Promise<void> } | undefined;
  const rebuildIsFunction = typeof context?.rebuild === "function";
  const source = join(serviceDir, "functions", "fn.ts");
  writeFileSync(source, 'export const handler = async () => "rebuilt";\n');
  try {
    await context?.rebuild();
    return { rebuildIsFunction, rebuiltBundle: readFileSync(join(serviceDir, ".esbuild", ".build", "functions", "fn.mjs"), "utf8") };
  } finally {
    await context?.dispose();
    writeFileSync(source, 'export const handler = async () => "built";\n');
  }
}

async function recorder(serviceDir: string): Promise<BundleObservations["recorder"]> {
  const builds = new EsbuildBuilds();
  const plugin = serverlessEsbuildFor(serviceDir, builds);
  const recording = builds.recording;
  await plugin.hooks.initialize?.();
  await bundled(plugin);
  const build = builds.builds.get("functions/fn.ts");
  return {
    recording,
    ...(build ? { options: build.options } : {}),
    inputs: Object.keys(build?.result?.metafile?.inputs ?? {}),
    outputs: Object.keys(build?.result?.metafile?.outputs ?? {}),
  };
}

/** Each check in turn (they bundle the same entry), what one threw kept as its error. */
await answerParent(async ({ serviceDir }: BundleChecks): Promise<BundleObservations> => {
  const observations: BundleObservations = { buildCache: {}, recorder: {} };
  observations.buildCache = await buildCache(serviceDir).catch((error: unknown) => ({ error: described(error) }));
  observations.recorder = await recorder(serviceDir).catch((error: unknown) => ({ error: described(error) }));
  return observations;
});
