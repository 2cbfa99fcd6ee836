import { createRequire } from "node:module";
import type { BuildOptions } from "esbuild";
import { ROOT, serverlessConfig } from "./serverless-config.ts";

const require = createRequire(import.meta.url);

type PluginOptions = Record<string, unknown> & { external?: string[]; exclude?: string[]; outputFileExtension?: string };
interface PluginClass {
  prototype: { getBuildOptions(this: unknown): PluginOptions };
}

/** serverless-esbuild's own defaults merged with serverless.yml's custom.esbuild, by its own code. */
export function pluginBuildOptions(root = ROOT): PluginOptions {
  const config = serverlessConfig(root);
  const plugin = require("serverless-esbuild") as { default?: PluginClass } & PluginClass;
  const cls = plugin.default ?? plugin;
  const self = { serviceDirPath: root, serverless: { service: { provider: config.provider, custom: config.custom } } };
  return cls.prototype.getBuildOptions.call(self);
}

// The plugin's own option names, which it removes before calling esbuild (serverless-esbuild 1.57 bundle.ts).
const PLUGIN_ONLY = [
  "concurrency",
  "zipConcurrency",
  "exclude",
  "nativeZip",
  "packager",
  "packagePath",
  "watch",
  "keepOutputDirectory",
  "packagerOptions",
  "installExtraArgs",
  "outputFileExtension",
  "outputBuildFolder",
  "outputWorkFolder",
  "nodeExternals",
  "skipBuild",
  "skipRebuild",
  "skipBuildExcludeFns",
  "stripEntryResolveExtensions",
  "disposeContext",
];

/**
 * The esbuild options `serverless package` uses for every function, without entry and output:
 * test/bench/bundle-size.test.ts checks that a bundle built with them is byte-identical to the
 * one serverless-esbuild's own bundling step writes.
 */
export function esbuildOptions(root = ROOT): BuildOptions {
  const resolved = pluginBuildOptions(root);
  const options: Record<string, unknown> = Object.fromEntries(Object.entries(resolved).filter(([key]) => !PLUGIN_ONLY.includes(key)));
  const exclude = resolved.exclude ?? [];
  options.external = [...(resolved.external ?? []), ...(exclude.includes("*") ? [] : exclude)];
  if (resolved.outputFileExtension && resolved.outputFileExtension !== ".js") options.outExtension = { ".js": resolved.outputFileExtension };
  return { ...(options as BuildOptions), absWorkingDir: root };
}
