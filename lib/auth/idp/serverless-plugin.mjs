// @ts-check
// A local serverless plugin: a deployed stage must not ship an Idp without its issuer, client id
// and client secret (which would otherwise fall back to the local development provider's). The
// client secret lives in SSM Parameter Store: packaging takes its parameter's NAME, never the
// value (docs/deploying.md, "Secrets"). Plain JS (checked by tsc through its JSDoc types) because the
// Serverless CLI loads plugins itself.
/** @import { Serverless, ServerlessPlugin } from "../../core/serverless-host.ts" */

/** @type {[string, string, string][]} */
const REQUIRED = [
  ["IDP_ISSUER", "idpIssuer", "the provider's issuer URL, e.g. https://accounts.google.com"],
  ["IDP_CLIENT_ID", "idpClientId", "the client id registered at the provider"],
];
/** @type {[string, string]} */
const SECRET = ["idpClientSecretParameter", "the SSM SecureString holding the client secret, e.g. /<project>/prod/idp-client-secret"];

/**
 * Given on the command line or under serverless.yml `params` (the stage's or the defaults).
 * @param {Serverless} serverless
 * @param {string} name
 */
function paramGiven(serverless, name) {
  const cli = [serverless.processedInput?.options?.param ?? []].flat().some((item) => String(item).split("=")[0] === name);
  const params = serverless.configurationInput?.params ?? {};
  return cli || [params[serverless.service.provider.stage], params.default].some((set) => set?.[name] !== undefined && set?.[name] !== null);
}

const absent = (/** @type {unknown} */ value) => value === undefined || value === null || value === "" || value === "unset" || value === "null";

/** @implements {ServerlessPlugin} */
export default class IdpSecretPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { "before:package:initialize": () => this.check() };
  }

  /** The Idp's routes are among the auth functions' events when an Idp service is configured. */
  usesIdp() {
    const functions = Object.values(this.serverless.service.functions ?? {});
    return functions.some((fn) => (fn.events ?? []).some((e) => e?.httpApi?.path === "/auth/idp/token"));
  }

  check() {
    const stage = this.serverless.service.provider.stage;
    if (stage === "local" || process.env.IS_OFFLINE === "true") return;
    if (!this.usesIdp()) return;
    // A value on the command line would sit in the template and the functions' configuration.
    if (paramGiven(this.serverless, "idpClientSecret")) {
      throw new this.serverless.classes.Error(
        `Stage '${stage}' takes the Idp client secret from SSM Parameter Store, never as a value: instead of --param idpClientSecret=..., store it as a SecureString and pass --param ${SECRET[0]}=<parameter name> (docs/deploying.md, "Secrets")`,
      );
    }
    const env = this.serverless.service.provider.environment ?? {};
    const missing = REQUIRED.filter(([name]) => absent(env[name]));
    if (absent(this.serverless.service.custom?.secrets?.parameters?.IDP_CLIENT_SECRET)) missing.push(["", ...SECRET]);
    const loopback = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(String(env.IDP_ISSUER ?? ""));
    if (missing.length === 0 && !loopback) return;
    const lines = missing.map(([, param, what]) => `  --param ${param}=...   ${what}`);
    if (loopback) lines.push("  idpIssuer points at loopback: that is the local development provider, not a deployed one");
    throw new this.serverless.classes.Error(`Stage '${stage}' configures an Idp provider but lacks:\n${lines.join("\n")}`);
  }
}
