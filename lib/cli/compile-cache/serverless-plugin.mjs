// @ts-check
// A local serverless plugin: ships V8's compile cache in every function's package when
// `custom.compileCache.node` names the Node version the deployed runtime runs (docs/deploying.md,
// "Compile cache"). Between serverless-esbuild's bundling and its zipping (its one hook does
// both: this wraps its pack step), each bundle's cache is generated for /var/task, that Node
// version, provider.architecture and Lambda's user (generate.mjs), put in the package of every
// function of that bundle as .node-compile-cache/, and NODE_COMPILE_CACHE points those functions
// at it. Each function reports on its cold-start line whether Node took it (lib/core/compile-cache.ts).
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CACHE_FOLDER, generateCompileCache, lambdaNodeFlags, nodeBinary, nodeCommand, TASK_ROOT } from "./generate.mjs";
/** @import { Serverless, ServerlessPlugin } from "../../core/serverless-host.ts" */

/** @typedef {{ bundlePath: string, functionAlias: string }} BuildResult */
/** @typedef {{ pack: () => Promise<void>, buildResults?: BuildResult[], buildDirPath?: string }} EsbuildPlugin */

// serverless-esbuild's folder prefix for what goes into one function's package only (its ONLY_PREFIX).
const ONLY_PREFIX = "__only_";

/**
 * `custom.compileCache` read: the Node version (null: no cache) and the user id.
 * @param {unknown} value
 * @returns {{ node: string | undefined, uid: number }}
 */
export function compileCacheSettings(value) {
  const given = /** @type {{ node?: unknown, uid?: unknown }} */ (value ?? {});
  const node = given.node === null || given.node === undefined || given.node === "" ? undefined : String(given.node).replace(/^v/, "");
  if (node !== undefined && !/^\d+\.\d+\.\d+$/.test(node)) throw new Error(`custom.compileCache.node: '${node}' is no Node version (e.g. 22.23.5)`);
  const uid = Number(given.uid ?? 993);
  if (!Number.isInteger(uid) || uid < 0) throw new Error(`custom.compileCache.uid: '${String(given.uid)}' is no user id`);
  return { node, uid };
}

/** @implements {ServerlessPlugin} */
export default class CompileCachePlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      // Listed before serverless-esbuild in serverless.yml: this runs first on the same hook.
      "before:package:createDeploymentArtifacts": () => this.wrapPack(),
    };
  }

  wrapPack() {
    let settings;
    try {
      settings = compileCacheSettings(this.serverless.service.custom?.compileCache);
    } catch (error) {
      throw new this.serverless.classes.Error(/** @type {Error} */ (error).message);
    }
    if (settings.node === undefined) return;
    const plugins = /** @type {{ pluginManager: { plugins: object[] } }} */ (/** @type {unknown} */ (this.serverless)).pluginManager.plugins;
    const esbuild = /** @type {EsbuildPlugin | undefined} */ (plugins.find((p) => p.constructor.name === "EsbuildServerlessPlugin"));
    if (esbuild === undefined) throw new this.serverless.classes.Error("custom.compileCache: serverless-esbuild is not loaded");
    const pack = esbuild.pack.bind(esbuild);
    const { node, uid } = settings;
    esbuild.pack = async () => {
      await this.generate(esbuild, { node, uid, arch: this.serverless.service.provider.architecture === "arm64" ? "arm64" : "x86_64" });
      await pack();
    };
  }

  /**
   * @param {EsbuildPlugin} esbuild
   * @param {import("./generate.mjs").Target} target
   */
  async generate(esbuild, target) {
    const buildDir = esbuild.buildDirPath;
    if (buildDir === undefined) return;
    const command = nodeCommand(target, await nodeBinary(target));
    // One cache per bundle and memory size: the runtime's heap flags follow the memory, and V8's
    // flags are part of the key.
    const service = this.serverless.service;
    const providerMemory = Number(service.provider.memorySize ?? 1024);
    /** @type {Map<string, { bundle: string, memory: number, functions: string[] }>} */
    const jobs = new Map();
    for (const { bundlePath, functionAlias } of esbuild.buildResults ?? []) {
      const memory = Number(service.functions[functionAlias]?.memorySize ?? providerMemory);
      const key = `${bundlePath} ${memory}`;
      const job = jobs.get(key) ?? { bundle: bundlePath, memory, functions: [] };
      job.functions.push(functionAlias);
      jobs.set(key, job);
    }
    const work = await mkdtemp(join(tmpdir(), "compile-caches-"));
    try {
      for (const { bundle, memory, functions } of jobs.values()) {
        const out = join(work, `${bundle.replace(/\W+/g, "_")}-${memory}`);
        await generateCompileCache({ buildDir, bundle, out, target, command, flags: lambdaNodeFlags(memory) });
        for (const alias of functions) {
          await cp(out, join(buildDir, `${ONLY_PREFIX}${alias}`, CACHE_FOLDER), { recursive: true });
          const fn = this.serverless.service.functions[alias];
          if (fn !== undefined) fn.environment = { ...fn.environment, NODE_COMPILE_CACHE: `${TASK_ROOT}/${CACHE_FOLDER}` };
        }
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}
