import { describe, expect, it } from "vitest";
import IdpSecretPlugin from "./serverless-plugin.mjs";
import type { Serverless } from "../../core/serverless-host.ts";

class ServerlessError extends Error {}

function pluginFor(
  stage: string,
  environment: Record<string, unknown>,
  withIdp = true,
  { secretParameter = "/shop/prod/idp-client-secret" as string | null, params = [] as string[] } = {},
) {
  const serverless = {
    classes: { Error: ServerlessError },
    processedInput: { options: { param: params } },
    service: {
      custom: { secrets: { parameters: { IDP_CLIENT_SECRET: secretParameter } } },
      provider: { stage, environment },
      functions: withIdp
        ? { "auth-idp-token": { events: [{ httpApi: { method: "POST", path: "/auth/idp/token" } }] } }
        : { "auth-me": { events: [{ httpApi: { method: "GET", path: "/auth/me" } }] } },
    },
  };
  const plugin = new IdpSecretPlugin(serverless as unknown as Serverless);
  return () => plugin.hooks["before:package:initialize"]?.();
}

const complete = { IDP_ISSUER: "https://accounts.google.com", IDP_CLIENT_ID: "client" };

describe("packaging a stage with an Idp", () => {
  it("refuses a deployed stage without the client secret, issuer or client id, naming the params", () => {
    expect(pluginFor("prod", complete, true, { secretParameter: null })).toThrow(/--param idpClientSecretParameter=\.\.\. {3}the SSM SecureString/);
    expect(pluginFor("prod", { ...complete, IDP_ISSUER: null })).toThrow(/--param idpIssuer=/);
    expect(pluginFor("prod", { ...complete, IDP_CLIENT_ID: undefined })).toThrow(/--param idpClientId=/);
  });

  it("refuses the client secret's value given the old way, naming the parameter that replaces it", () => {
    expect(pluginFor("prod", complete, true, { params: ["idpClientSecret=s3cret"] })).toThrow(
      /never as a value: instead of --param idpClientSecret=\.\.\., .* --param idpClientSecretParameter=/,
    );
    expect(pluginFor("prod", complete, true, { params: ["idpClientSecret=s3cret"] })).not.toThrow(/s3cret/);
  });

  it("refuses the local development provider's loopback issuer in a deployed stage", () => {
    expect(pluginFor("prod", { ...complete, IDP_ISSUER: "http://127.0.0.1:3003" })).toThrow(/loopback/);
  });

  it("lets a complete stage, the local stage and an application without Idp through", () => {
    expect(pluginFor("prod", complete)).not.toThrow();
    expect(pluginFor("local", { IDP_CLIENT_SECRET: "unset" }, true, { secretParameter: null, params: ["idpClientSecret=local"] })).not.toThrow();
    expect(pluginFor("prod", {}, false)).not.toThrow();
  });
});
