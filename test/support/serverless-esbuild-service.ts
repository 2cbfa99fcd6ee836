import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EsbuildBuilds } from "../../lib/local/esbuild-builds.mjs";
import { serverlessEsbuildClass } from "../../lib/local/serverless-esbuild-instance.mjs";

/** serverless-esbuild's plugin's hooks, by the event Serverless runs them on. */
export type PluginHooks = { hooks: Record<string, () => Promise<void>> };

/** A one-function service in `serviceDir`: functions/fn.ts, whose handler answers `answer`. */
export function writeService(serviceDir: string, answer = "built"): void {
  mkdirSync(join(serviceDir, "functions"), { recursive: true });
  writeFileSync(join(serviceDir, "functions", "fn.ts"), `export const handler = async () => ${JSON.stringify(answer)};\n`);
  writeFileSync(join(serviceDir, "package.json"), "{}\n");
}

/**
 * serverless-esbuild's plugin as Serverless makes it for the one-function service in `serviceDir`
 * under `serverless offline`, the recorder in its options. Its `initialize` reads the service's
 * folder from Serverless's configuration; its bundling resolves the handlers against the working
 * directory too, which Serverless makes the service's folder.
 */
export function serverlessEsbuildFor(serviceDir: string, builds: EsbuildBuilds): PluginHooks {
  const Plugin = serverlessEsbuildClass();
  const service = {
    provider: { name: "aws", runtime: "nodejs22.x" },
    custom: { esbuild: { bundle: true, format: "esm", outputFileExtension: ".mjs", platform: "node", target: "node22", sourcemap: true } },
    functions: { fn: { handler: "functions/fn.handler" } },
    getFunction: (name: string) => ({ handler: `functions/${name}.handler` }),
    package: {},
  };
  const serverless = {
    config: { serviceDir },
    service,
    cli: { log: () => undefined },
    configSchemaHandler: { defineFunctionProperties: () => undefined },
    pluginManager: { plugins: [] as unknown[], spawn: async () => undefined },
    classes: { Error },
    processedInput: { commands: ["offline"] },
  };
  // As bundle-cache.mjs's `initialize` hook does, before serverless-esbuild's.
  builds.record(serverless);
  const log = Object.assign(() => undefined, {
    verbose: () => undefined,
    error: () => undefined,
    warning: () => undefined,
    notice: () => undefined,
    debug: () => undefined,
  });
  const plugin = new Plugin(serverless, {}, { log }) as PluginHooks;
  serverless.pluginManager.plugins.push(plugin);
  return plugin;
}
