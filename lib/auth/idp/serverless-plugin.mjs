// A local serverless plugin: a deployed stage must not ship an Idp without its issuer, client id
// and client secret (which would otherwise fall back to the local development provider's).
// Plain JS because the Serverless CLI loads plugins itself.

const REQUIRED = [
  ["IDP_ISSUER", "idpIssuer", "the provider's issuer URL, e.g. https://accounts.google.com"],
  ["IDP_CLIENT_ID", "idpClientId", "the client id registered at the provider"],
  ["IDP_CLIENT_SECRET", "idpClientSecret", 'the client secret, e.g. --param "idpClientSecret=${ssm:/blog/prod/idp-client-secret}"'],
];

export default class IdpSecretPlugin {
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
    const env = this.serverless.service.provider.environment ?? {};
    const missing = REQUIRED.filter(([name]) => {
      const value = env[name];
      return value === undefined || value === null || value === "" || value === "unset";
    });
    const loopback = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(String(env.IDP_ISSUER ?? ""));
    if (missing.length === 0 && !loopback) return;
    const lines = missing.map(([, param, what]) => `  --param ${param}=...   ${what}`);
    if (loopback) lines.push("  idpIssuer points at loopback: that is the local development provider, not a deployed one");
    throw new this.serverless.classes.Error(`Stage '${stage}' configures an Idp provider but lacks:\n${lines.join("\n")}`);
  }
}
