import { describe, expect, it } from "vitest";
import { Application } from "../../core/application.ts";
import { IdpProvider } from "./provider.ts";
import { inProcess } from "../../../test/support/parts.ts";

function configure(options: Record<string, unknown>): () => Application {
  return () =>
    new Application(
      {
        name: "t",
        version: "1",
        models: [],
        serviceTypes: [IdpProvider],
        services: { login: { type: "Webda/IdpProvider", ...options } },
      },
      inProcess,
    );
}

const valid = {
  issuer: "https://accounts.example",
  clientId: "client",
  authorized_uris: ["https://app.example/"],
  redirects: { success: "https://app.example/ok", failure: "https://app.example/failed" },
};

describe("Framework/IdpProvider options", () => {
  it("fills the v4 defaults", () => {
    const provider = configure(valid)().service("login")?.service as IdpProvider;
    expect(provider.options).toMatchObject({ url: "/auth/idp", scope: "openid email profile", audiences: [], trustEmailVerification: true });
    expect(provider.callbackPath).toBe("/auth/idp/callback");
  });

  it("refuses to start without redirects.success or redirects.failure", () => {
    expect(configure({ ...valid, redirects: { success: "https://app.example/ok" } })).toThrow(
      /service 'login' \(Framework\/IdpProvider\): option 'redirects.failure' is required/,
    );
    expect(configure({ ...valid, redirects: { failure: "https://app.example/f" } })).toThrow(/option 'redirects.success' is required/);
    const { redirects: _omitted, ...withoutRedirects } = valid;
    expect(configure(withoutRedirects)).toThrow(/option 'redirects' is required/);
  });

  it.each([
    ["no_referer", { no_referer: true }, /'no_referer' was removed in v4: the Referer is never used/],
    ["exposeScope", { exposeScope: true }, /'exposeScope' was removed in v4: .*IdpAuth.Tokens/],
    ["authenticationService", { authenticationService: "auth" }, /'authenticationService' was removed in v4: .*found by its type/],
    ["project_id", { project_id: "p" }, /'project_id' was removed in v4: .*issuer/],
    ["whitelist", { whitelist: ["^https://.*"] }, /'whitelist' was removed in v4: use `authorized_uris`/],
    ["defaults", { defaults: {} }, /'defaults' was removed in v4: use `redirects.success` and `redirects.failure`/],
    [
      "redirects.use_referer",
      { redirects: { ...valid.redirects, use_referer: true } },
      /'redirects.use_referer' was removed in v4: use the `redirect` query parameter/,
    ],
  ])("refuses the removed v3 option %s, saying what replaces it", (_name, extra, message) => {
    expect(configure({ ...valid, ...extra })).toThrow(message);
  });

  it("refuses URLs that are not absolute http(s), a scope without openid, unknown options", () => {
    expect(configure({ ...valid, authorized_uris: ["/relative"] })).toThrow(/authorized_uris.0/);
    expect(configure({ ...valid, authorized_uris: ["javascript:alert(1)"] })).toThrow(/authorized_uris.0' must be an http\(s\) URL/);
    expect(configure({ ...valid, redirects: { success: "https://u:p@app.example/", failure: "https://app.example/f" } })).toThrow(
      /redirects.success' must not carry credentials/,
    );
    expect(configure({ ...valid, scope: "email profile" })).toThrow(/'scope' must include openid/);
    expect(configure({ ...valid, clientSecret: "in-source" })).toThrow(/'clientSecret' is not an option of this type/);
    expect(configure({ ...valid, url: "auth/idp" })).toThrow(/option 'url'/);
  });
});
