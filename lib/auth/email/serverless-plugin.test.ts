import { describe, expect, it } from "vitest";
import EmailPublicUrlPlugin from "./serverless-plugin.mjs";
import type { Serverless } from "../../core/serverless-host.ts";

class ServerlessError extends Error {}

function pluginFor(stage: string, environment: Record<string, unknown>, withEmail = true) {
  const path = withEmail ? "/auth/password/recovery" : "/auth/me";
  const serverless = {
    classes: { Error: ServerlessError },
    service: { provider: { stage, environment }, functions: { auth: { events: [{ httpApi: { method: "POST", path } }] } } },
  };
  const plugin = new EmailPublicUrlPlugin(serverless as unknown as Serverless);
  return () => plugin.hooks["before:package:initialize"]?.();
}

describe("packaging a stage whose email provider mails links", () => {
  it("refuses a deployed stage without publicUrl, naming the option", () => {
    for (const value of [undefined, null, "null", "", "unset"]) {
      expect(pluginFor("prod", { PUBLIC_URL: value })).toThrow(/publicUrl is missing[\s\S]*--param publicUrl=https:\/\//);
    }
  });

  it("refuses a base a link must not have: http, loopback, a fragment or query, not a URL", () => {
    expect(pluginFor("prod", { PUBLIC_URL: "http://api.example.com" })).toThrow(/must be https/);
    expect(pluginFor("prod", { PUBLIC_URL: "https://127.0.0.1:3000" })).toThrow(/loopback/);
    expect(pluginFor("prod", { PUBLIC_URL: "https://api.example.com/#" })).toThrow(/no credentials, query or fragment/);
    expect(pluginFor("prod", { PUBLIC_URL: "https://u:p@api.example.com" })).toThrow(/no credentials/);
    expect(pluginFor("prod", { PUBLIC_URL: "api.example.com" })).toThrow(/not an absolute URL/);
  });

  it("takes serverless.yml's default, the API's own execute-api URL, and refuses any other object", () => {
    const apiUrl = { "Fn::Join": ["", ["https://", { Ref: "HttpApi" }, ".execute-api.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]] };
    expect(pluginFor("prod", { PUBLIC_URL: apiUrl })).not.toThrow();
    expect(pluginFor("prod", { PUBLIC_URL: { "Fn::Join": ["", ["http://", { Ref: "HttpApi" }, ".execute-api."]] } })).toThrow(
      /neither a URL nor the API's own URL/,
    );
    expect(pluginFor("prod", { PUBLIC_URL: { Ref: "SomethingElse" } })).toThrow(/neither a URL nor the API's own URL/);
  });

  it("lets an https base, the local stage and a service without email provider through", () => {
    expect(pluginFor("prod", { PUBLIC_URL: "https://api.example.com/v1" })).not.toThrow();
    expect(pluginFor("local", {})).not.toThrow();
    expect(pluginFor("prod", {}, false)).not.toThrow();
  });
});
