import { describe, expect, it } from "vitest";
import { destinationProblem, isDeployedStage, prepareDeployedService } from "./deployed.mjs";
import { operationsSettings } from "./settings.mjs";

interface Fn {
  events?: { httpApi?: { method: string; path: string } | string; schedule?: unknown }[];
}
const http = (method: string, path: string) => ({ httpApi: { method, path } });

/** The functions as serverless.yml lists them for the sample, in short. */
function service(): {
  service: string;
  provider: { environment?: Record<string, string>; stackTags?: Record<string, string>; tags?: Record<string, string> };
  functions: Record<string, Fn>;
} {
  return {
    service: "shop",
    provider: { environment: { LOG_LEVEL: "info" } },
    functions: {
      graphql: { events: [http("POST", "/graphql"), http("GET", "/graphql")] },
      graphiql: { events: [http("GET", "/graphiql"), http("GET", "/graphiql/{asset}")] },
      "rest-testbean-testoperation": { events: [http("PUT", "/testbean/testoperation")] },
      // rest.packaging "single": one function for every route, the test service's among them.
      rest: { events: [http("GET", "/posts"), http("PUT", "/testbean/testoperation"), http("GET", "/testbeans"), { httpApi: "GET /testbean/other" }] },
      "rest-fallback": { events: [{ httpApi: "*" }] },
      authMigrate: { events: [{ schedule: { rate: "rate(1 hour)" } }] },
      stream: {},
    },
  };
}

describe("a deployed stage's service configuration", () => {
  it("tells `local` and serverless offline from a deployed stage", () => {
    expect(isDeployedStage("prod", {})).toBe(true);
    expect(isDeployedStage("ci", {})).toBe(true);
    expect(isDeployedStage("local", {})).toBe(false);
    expect(isDeployedStage("prod", { IS_OFFLINE: "true" })).toBe(false);
  });

  it("needs an alarm destination, naming both parameters", () => {
    const problem = destinationProblem(operationsSettings({}), "prod");
    expect(problem).toContain("Stage 'prod' needs an alarm destination");
    expect(problem).toContain("--param alarmTopicArn=");
    expect(problem).toContain("--param alarmEmail=");
    expect(destinationProblem(operationsSettings({ alarmEmail: "ops@example.com" }), "prod")).toBeUndefined();
    expect(destinationProblem(operationsSettings({ alarmTopicArn: "arn:aws:sns:us-east-1:123456789012:ops" }), "prod")).toBeUndefined();
    expect(destinationProblem(operationsSettings({ alarmTopicArn: "arn:aws:sns:us-east-1:123456789012:ops" }), "prod", "us-east-1")).toBeUndefined();
    expect(
      destinationProblem(operationsSettings({ alarmTopicArn: "arn:aws:sns:eu-west-1:123456789012:ops", alarmEmail: "ops@example.com" }), "prod", "us-east-1"),
    ).toBe("Stage 'prod' deploys to us-east-1 but its alarmTopicArn is a topic of eu-west-1: alarms notify topics of their own region only");
  });

  it("drops GraphiQL and the test services' routes, tells the functions, and tags the stack", () => {
    const s = service();
    const removed = prepareDeployedService(s, operationsSettings({ testServices: ["testbean"], tags: "team=shop" }), "prod");
    expect(removed.sort()).toEqual(["graphiql", "rest-testbean-testoperation"]);
    expect(Object.keys(s.functions).sort()).toEqual(["authMigrate", "graphql", "rest", "rest-fallback", "stream"]);
    // A shared function keeps its other routes; a path that only starts alike is another route.
    expect(s.functions.rest?.events).toEqual([http("GET", "/posts"), http("GET", "/testbeans")]);
    expect(s.provider.environment).toEqual({ LOG_LEVEL: "info", GRAPHIQL: "false", DISABLED_SERVICES: "testbean" });
    expect(s.provider.stackTags).toEqual({ service: "shop", stage: "prod", team: "shop" });
    expect(s.provider.tags).toEqual({ service: "shop", stage: "prod", team: "shop" });
  });

  it("keeps GraphiQL with graphiql=true and the test routes with testRoutes=true", () => {
    const s = service();
    expect(prepareDeployedService(s, operationsSettings({ testServices: ["testbean"], graphiql: "true", testRoutes: "true" }), "prod")).toEqual([]);
    expect(Object.keys(s.functions)).toEqual(Object.keys(service().functions));
    expect(s.provider.environment).toEqual({ LOG_LEVEL: "info" });
  });
});
