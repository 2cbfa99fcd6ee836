// @ts-check
// A serverless plugin for `serverless invoke local` only. osls loads the handler file with
// require() and tries just `<handler>.js` and `<handler>.cjs`, while our bundles are `.mjs`
// (ES modules that Lambda and serverless-offline load as such). After serverless-esbuild has
// bundled, this writes a `.cjs` twin that re-exports the `.mjs` one: Node >= 20.19 can require()
// an ES module, as long as it has no top-level await. Lambda and offline prefer `.mjs` over
// `.cjs`, so the twin never shadows the real bundle. Plain JS (checked by tsc through its JSDoc
// types): the serverless CLI loads plugins itself, without tsx.
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
/** @import { Serverless, ServerlessOptions, ServerlessPlugin } from "../core/serverless-host.ts" */

/** @implements {ServerlessPlugin} */
export default class InvokeLocalEsm {
  /**
   * @param {Serverless} serverless
   * @param {ServerlessOptions} options
   */
  constructor(serverless, options) {
    this.hooks = {
      "before:invoke:local:invoke": () => writeTwin(serverless, options.function),
    };
  }
}

/**
 * @param {Serverless} serverless
 * @param {string | undefined} functionName
 */
function writeTwin(serverless, functionName) {
  if (functionName === undefined) return;
  const handler = serverless.service.getFunction(functionName).handler;
  if (handler === undefined) return;
  const modulePath = join(serverless.serviceDir, handler.slice(0, handler.lastIndexOf(".")));
  const bundle = `${modulePath}.mjs`;
  if (!existsSync(bundle)) return;
  const source = `module.exports = require(${JSON.stringify(`./${basename(bundle)}`)});\n`;
  writeFileSync(join(dirname(bundle), `${basename(modulePath)}.cjs`), source);
}
