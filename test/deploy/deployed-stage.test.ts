import { afterEach, describe, expect, it } from "vitest";
import { buildApp, definition } from "../fixtures/blog/definition.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { inProcess } from "../support/parts.ts";

// What the operations plugin puts in a deployed stage's environment (docs/operating.md, "GraphiQL
// and test routes"), read by the code paths it governs: the application the functions build, the
// REST catch-all and the GraphQL endpoint.
const app = () => buildApp(definition.serviceTypes, inProcess).useStore(memoryStore);
const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

afterEach(() => {
  delete process.env.DISABLED_SERVICES;
});

describe("a deployed stage without its test services (DISABLED_SERVICES)", () => {
  it("builds no TestBean: the catch-all answers its path 404 and GraphQL has no such mutation", async () => {
    const full = app();
    const served = await call(restHandler(full), httpEvent("PUT", "/testbean/testoperation", { body: { counter: 4095 } }));
    expect(served).toMatchObject({ statusCode: 200, body: "fff" });
    expect(Object.keys(graphqlHandler(full).endpoint.schema.getMutationType()?.getFields() ?? {})).toContain("testbeanTestOperation");

    process.env.DISABLED_SERVICES = "testbean";
    const deployed = app();
    expect(deployed.service("testbean")).toBeUndefined();
    expect(deployed.service("publisher")).toBeDefined();
    const gone = await call(restHandler(deployed), httpEvent("PUT", "/testbean/testoperation", { body: { counter: 4095 } }));
    expect(gone).toMatchObject({ statusCode: 404, body: { code: 404 } });
    const mutations = Object.keys(graphqlHandler(deployed).endpoint.schema.getMutationType()?.getFields() ?? {});
    expect(mutations).not.toContain("testbeanTestOperation");
    expect(mutations).toContain("publisherPublish");
    // The API's own description follows what is served.
    const described = async (application: ReturnType<typeof app>) =>
      Object.keys(
        (
          (await call(restHandler(application), httpEvent("GET", "/openapi.json", { routeKey: "GET /openapi.json" }))).body as {
            paths: Record<string, unknown>;
          }
        ).paths,
      );
    expect(await described(full)).toContain("/testbean/testoperation");
    expect(await described(deployed)).not.toContain("/testbean/testoperation");
    expect(await described(deployed)).toContain("/publisher/publish");
  });
});

describe("a deployed stage without GraphiQL (GRAPHIQL=false)", () => {
  it("answers GraphiQL's paths 404 from the catch-all, where they are otherwise another function's", async () => {
    const application = app();
    const withPage = await call(restHandler(application, {}), httpEvent("POST", "/graphiql"));
    expect(withPage.statusCode).toBe(405);
    for (const path of ["/graphiql", "/graphiql/app.js"]) {
      const without = await call(restHandler(application, { GRAPHIQL: "false" }), httpEvent("GET", path));
      expect(without).toMatchObject({ statusCode: 404, body: { code: 404 } });
    }
  });

  it("stops the GraphQL endpoint redirecting browsers to the page", async () => {
    const application = app();
    expect(graphqlOptions(application, {}).exposeGraphiQL).toBe(true);
    expect(graphqlOptions(application, { GRAPHIQL: "false" }).exposeGraphiQL).toBe(false);
    const redirecting = await call(graphqlHandler(application, graphqlOptions(application, {})), httpEvent("GET", "/graphql", { headers: html }));
    expect(redirecting.statusCode).toBe(302);
    const plain = await call(graphqlHandler(application, graphqlOptions(application, { GRAPHIQL: "false" })), httpEvent("GET", "/graphql", { headers: html }));
    expect(plain.statusCode).not.toBe(302);
    expect(plain.headers.location).toBeUndefined();
  });
});
