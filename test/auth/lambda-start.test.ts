import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp, definition, identifyingServiceTypes, sessionRoutesServiceTypes } from "../../app/definition.ts";
import { ConfigurationError } from "../../lib/core/config.ts";

/**
 * Every function builds the application at its cold start (functions/*.ts, through buildApp with
 * its own service types). In a Lambda runtime (AWS sets AWS_EXECUTION_ENV) that start must fail,
 * rather than serve, when the password cost is under OWASP's floor or no signing key is given,
 * whatever test or offline flags the environment also carries.
 */
const functionTypes = { "auth (every service)": definition.serviceTypes, "auth-session": sessionRoutesServiceTypes(), "identifying (rest-read, graphql, ws, stream)": identifyingServiceTypes() };
const flagSets: Record<string, string>[] = [{}, { NODE_ENV: "test", VITEST: "true" }, { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" }];
const email = definition.services.email as { type: string } & Record<string, unknown>;
const weakCost = { services: { ...definition.services, email: { ...email, password: { cost: { ln: 16 } } } } };

function environment(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("a Lambda runtime", () => {
  for (const [name, types] of Object.entries(functionTypes)) {
    it(`${name}: starts with the floor cost and a signing key, refuses a weaker cost or no key`, () => {
      for (const flags of flagSets) {
        // A deployed stage names its public URL (the base of mailed links; packaging refuses without it).
        environment({ AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x", PUBLIC_URL: "https://api.example.com", ...flags });
        expect(() => buildApp(types)).not.toThrow();
        expect(() => buildApp(types, weakCost)).toThrow(ConfigurationError);
        expect(() => buildApp(types, weakCost)).toThrow(/password\.cost.*OWASP/);
        for (const missing of ["", "unset"]) {
          vi.stubEnv("AUTH_SIGNING_KEY", missing);
          expect(() => buildApp(types)).toThrow(ConfigurationError);
          expect(() => buildApp(types)).toThrow(/AUTH_SIGNING_KEY is not set/);
        }
        vi.unstubAllEnvs();
      }
    });
  }

  it("is told apart from serverless offline, which may start cheaper and generate its key", () => {
    environment({ IS_OFFLINE: "true", AUTH_SIGNING_KEY: "", LOCAL_DATA_DIR: "/nonexistent/not-used-at-start" });
    expect(() => buildApp(definition.serviceTypes, weakCost)).not.toThrow();
  });
});
