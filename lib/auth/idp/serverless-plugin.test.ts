import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain-JS serverless plugin, loaded by the Serverless CLI
import IdpSecretPlugin from "./serverless-plugin.mjs";

class ServerlessError extends Error {}

function pluginFor(stage: string, environment: Record<string, unknown>, withIdp = true) {
  const serverless = {
    classes: { Error: ServerlessError },
    service: {
      provider: { stage, environment },
      functions: withIdp ? { "auth-idp-token": { events: [{ httpApi: { method: "POST", path: "/auth/idp/token" } }] } } : { "auth-me": { events: [{ httpApi: { method: "GET", path: "/auth/me" } }] } },
    },
  };
  const plugin = new IdpSecretPlugin(serverless) as { hooks: Record<string, () => void> };
  return () => plugin.hooks["before:package:initialize"]?.();
}

const complete = { IDP_ISSUER: "https://accounts.google.com", IDP_CLIENT_ID: "client", IDP_CLIENT_SECRET: "s3cret" };

describe("packaging a stage with an Idp", () => {
  it("refuses a deployed stage without the client secret, issuer or client id, naming the params", () => {
    expect(pluginFor("prod", { ...complete, IDP_CLIENT_SECRET: "unset" })).toThrow(/--param idpClientSecret=/);
    expect(pluginFor("prod", { ...complete, IDP_ISSUER: null })).toThrow(/--param idpIssuer=/);
    expect(pluginFor("prod", { ...complete, IDP_CLIENT_ID: undefined })).toThrow(/--param idpClientId=/);
  });

  it("refuses the local development provider's loopback issuer in a deployed stage", () => {
    expect(pluginFor("prod", { ...complete, IDP_ISSUER: "http://127.0.0.1:3003" })).toThrow(/loopback/);
  });

  it("lets a complete stage, the local stage and an application without Idp through", () => {
    expect(pluginFor("prod", complete)).not.toThrow();
    expect(pluginFor("local", { IDP_CLIENT_SECRET: "unset" })).not.toThrow();
    expect(pluginFor("prod", {}, false)).not.toThrow();
  });
});
