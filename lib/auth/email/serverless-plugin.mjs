// @ts-check
// A local serverless plugin: a deployed stage whose email provider mails links must have a base for
// them: `--param publicUrl=https://...`, or serverless.yml's default, the API's own execute-api URL
// (custom.apiUrl, a CloudFormation Fn::Join of the HttpApi's id). A base taken from the request's
// Host or X-Forwarded-* headers would be the attacker's to choose.
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
/** @import { Serverless, ServerlessPlugin } from "../../core/serverless-host.ts" */

const UNSET = new Set(["", "null", "unset", "undefined"]);
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** @implements {ServerlessPlugin} */
export default class EmailPublicUrlPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { "before:package:initialize": () => this.check() };
  }

  /** The recovery route is among the auth functions' events when an email provider is configured. */
  mailsLinks() {
    const functions = Object.values(this.serverless.service.functions ?? {});
    return functions.some((fn) => (fn.events ?? []).some((e) => e?.httpApi?.path === "/auth/password/recovery"));
  }

  /**
   * Why the value cannot be a deployed stage's link base, or undefined when it can.
   * @param {unknown} value
   * @returns {string | undefined}
   */
  problem(value) {
    if (value === undefined || value === null || UNSET.has(String(value))) return "is missing";
    if (typeof value === "object") return this.isApiUrl(value) ? undefined : `is neither a URL nor the API's own URL (${JSON.stringify(value)})`;
    let url;
    try {
      url = new URL(String(value));
    } catch {
      return `is not an absolute URL (${JSON.stringify(value)})`;
    }
    if (url.protocol !== "https:") return "must be https: every link carries a token";
    if (LOOPBACK.test(url.hostname)) return "points at loopback, the local service's origin";
    if (url.username !== "" || url.password !== "" || /[?#]/.test(String(value))) return "must have no credentials, query or fragment";
    return undefined;
  }

  /**
   * serverless.yml's default: `https://` joined to the HttpApi's id and the region's execute-api domain.
   * @param {object} value
   */
  isApiUrl(value) {
    const join = /** @type {{ "Fn::Join"?: unknown }} */ (value)["Fn::Join"];
    if (!Array.isArray(join) || join[0] !== "" || !Array.isArray(join[1])) return false;
    const parts = /** @type {unknown[]} */ (join[1]);
    return parts[0] === "https://" && JSON.stringify(parts[1]) === JSON.stringify({ Ref: "HttpApi" }) && parts[2] === ".execute-api.";
  }

  check() {
    const stage = this.serverless.service.provider.stage;
    if (stage === "local" || process.env.IS_OFFLINE === "true") return;
    if (!this.mailsLinks()) return;
    const problem = this.problem(this.serverless.service.provider.environment?.PUBLIC_URL);
    if (problem === undefined) return;
    throw new this.serverless.classes.Error(
      `Stage '${stage}' mails links (email provider) but its publicUrl ${problem}:\n  --param publicUrl=https://api.example.com   the API's public URL, the base of recovery and verification links (leave it out: the API's own URL)`,
    );
  }
}
