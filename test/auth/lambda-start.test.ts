import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp, definition, identifyingServiceTypes, sessionRoutesServiceTypes } from "../fixtures/blog/definition.ts";
import { generateSigningJwk, publicKeySet } from "../../lib/auth/keys.ts";
import { ConfigurationError } from "../../lib/core/config.ts";
import type { LoadedSecrets } from "../../lib/core/secrets/values.ts";

/**
 * Every function builds the application at its cold start (functions/*.ts, through buildApp with
 * its own service types). In a Lambda runtime (AWS sets AWS_EXECUTION_ENV) that start must fail,
 * rather than serve, when the password cost is under OWASP's floor or it has no keys (the private
 * one from the secret store, never its environment; or the public set), whatever test or offline
 * flags the environment also carries.
 */
const functionTypes = {
  "auth (every service)": definition.serviceTypes,
  "auth-session": sessionRoutesServiceTypes(),
  "identifying (rest-read, graphql, ws, stream)": identifyingServiceTypes(),
};
const flagSets: Record<string, string>[] = [{}, { NODE_ENV: "test", VITEST: "true" }, { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" }];
const email = definition.services.email as { type: string } & Record<string, unknown>;
const weakCost = { services: { ...definition.services, email: { ...email, password: { cost: { ln: 16 } } } } };

function environment(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The function's application, given what the secret store returned at its cold start (lib/core/secrets/load.ts). */
const build =
  (types: typeof definition.serviceTypes, secrets: LoadedSecrets = new Map(), overrides = {}) =>
  () =>
    buildApp(types, { secrets }, overrides);

const signingJwk = JSON.stringify(generateSigningJwk());
const publicKeys = JSON.stringify(publicKeySet(signingJwk));

describe("a Lambda runtime", () => {
  for (const [name, types] of Object.entries(functionTypes)) {
    it(`${name}: starts with the floor cost and its keys, refuses a weaker cost or no key`, () => {
      for (const flags of flagSets) {
        // A deployed stage names its public URL (the base of mailed links; packaging refuses without it).
        environment({
          AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
          PUBLIC_URL: "https://api.example.com",
          AUTH_SIGNING_KEY_PARAMETER: "/blog/prod/auth-signing-key",
          ...flags,
        });
        // The private key as the secret store gave it at this cold start (lib/core/secrets/load.ts).
        const loaded = new Map([["AUTH_SIGNING_KEY", signingJwk]] as const);
        expect(build(types, loaded)).not.toThrow();
        expect(build(types, loaded, weakCost)).toThrow(ConfigurationError);
        expect(build(types, loaded, weakCost)).toThrow(/password\.cost.*OWASP/);
        // A function that only verifies is given the public set instead.
        expect(build(types)).toThrow(/AUTH_SIGNING_KEY is not set, from the SSM parameter '\/blog\/prod\/auth-signing-key'/);
        vi.stubEnv("AUTH_PUBLIC_KEYS", publicKeys);
        expect(build(types)).not.toThrow();
        vi.unstubAllEnvs();
      }
    });
  }

  it("never takes the signing key from its environment, whatever the flags", () => {
    for (const flags of flagSets) {
      environment({ AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x", PUBLIC_URL: "https://api.example.com", AUTH_SIGNING_KEY: signingJwk, ...flags });
      expect(build(definition.serviceTypes)).toThrow(/AUTH_SIGNING_KEY is not set, from an SSM parameter: deploy with --param authSigningKeyParameter=/);
      vi.unstubAllEnvs();
    }
  });

  it("checks the key's shape at cold start, naming the parameter and never the value", () => {
    environment({
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
      PUBLIC_URL: "https://api.example.com",
      AUTH_SIGNING_KEY_PARAMETER: "/blog/prod/auth-signing-key",
    });
    const notAKey = "not-json-but-secret-text";
    const attempt = build(definition.serviceTypes, new Map([["AUTH_SIGNING_KEY", notAKey]]));
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(/^the SSM parameter '\/blog\/prod\/auth-signing-key' \(AUTH_SIGNING_KEY_PARAMETER\) is not JSON/);
    expect(() => attempt()).toThrow(expect.objectContaining({ message: expect.not.stringContaining(notAKey) }));
    // A public half missing from the published set: tokens it signs would verify nowhere else.
    const withKey = build(definition.serviceTypes, new Map([["AUTH_SIGNING_KEY", signingJwk]]));
    vi.stubEnv("AUTH_PUBLIC_KEYS", JSON.stringify(publicKeySet(JSON.stringify(generateSigningJwk()))));
    expect(withKey).toThrow(/AUTH_PUBLIC_KEYS .* lacks the public half of the signing key/);
    // A private key given as the public set would publish it: refused.
    vi.stubEnv("AUTH_PUBLIC_KEYS", signingJwk);
    expect(withKey).toThrow(/AUTH_PUBLIC_KEYS holds a private key/);
  });

  it("is told apart from serverless offline, which may start cheaper and generate its key", () => {
    environment({ IS_OFFLINE: "true", AUTH_SIGNING_KEY: "", LOCAL_DATA_DIR: "/nonexistent/not-used-at-start" });
    expect(build(definition.serviceTypes, new Map(), weakCost)).not.toThrow();
  });
});
