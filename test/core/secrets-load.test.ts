import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifySigV4 } from "../support/sigv4-verify.ts";
import { startSsmStub, type SsmStub } from "../support/ssm-stub.ts";

/**
 * The secret loader of every deployed function (lib/core/secrets/load.ts) against a loopback
 * server speaking SSM's JSON protocol: its request (signed as AWS checks a SigV4 signature, names, decryption),
 * one call per cold start, and the startup errors an operator reads when a parameter is missing
 * or the role may not read it, which name the parameter and never a value.
 */

const APP_SECRET = "app-secret-value-".repeat(4);
const SIGNING_KEY = '{"kty":"OKP","crv":"Ed25519","x":"x-value","d":"private-d-value"}';
const CLIENT_SECRET = "idp-client-secret-value";
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "session-token-example" };

let stub: SsmStub;

beforeAll(async () => {
  stub = await startSsmStub({
    "/blog/prod/app-secret": { value: APP_SECRET },
    "/blog/prod/auth-signing-key": { value: SIGNING_KEY },
    "/blog/prod/idp-client-secret": { value: CLIENT_SECRET },
    "/blog/prod/plain": { value: "plain-value", type: "String" },
  });
});
afterAll(() => stub.close());

beforeEach(() => {
  stub.requests.length = 0;
  stub.deny.clear();
  stub.stall = false;
});

function lambdaEnv(parameters: Record<string, string>): NodeJS.ProcessEnv {
  return {
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_SSM: stub.url,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: credentials.sessionToken,
    // Values a careless template might still carry: a Lambda runtime must not take them.
    APP_SECRET: "from-the-environment",
    AUTH_SIGNING_KEY: "from-the-environment",
    IDP_CLIENT_SECRET: "from-the-environment",
    ...parameters,
  };
}

/** A cold start's loader: each environment object (lambdaEnv() makes a new one) reads on its own. */
async function coldStart() {
  const load = await import("../../lib/core/secrets/load.ts");
  const values = await import("../../lib/core/secrets/values.ts");
  const { ConfigurationError } = await import("../../lib/core/config.ts");
  return { ...load, ...values, ConfigurationError };
}

/** The error a cold start fails with: a ConfigurationError (the function does not start). */
async function loadError(env: NodeJS.ProcessEnv): Promise<Error> {
  const { loadSecrets, ConfigurationError } = await coldStart();
  const error = await loadSecrets(env).then(
    () => new Error("loadSecrets resolved"),
    (thrown: unknown) => thrown as Error,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return error;
}

describe("the secret loader of a deployed function", () => {
  it("reads its parameters in one signed GetParameters call with decryption, once per cold start", async () => {
    const env = lambdaEnv({
      APP_SECRET_PARAMETER: "/blog/prod/app-secret",
      AUTH_SIGNING_KEY_PARAMETER: "/blog/prod/auth-signing-key",
      IDP_CLIENT_SECRET_PARAMETER: "/blog/prod/idp-client-secret",
    });
    const { loadSecrets, secretValue } = await coldStart();
    const [first, second] = await Promise.all([loadSecrets(env), loadSecrets(env)]);
    const loaded = await loadSecrets(env);
    expect(stub.requests).toHaveLength(1);
    expect(first).toBe(loaded);
    expect(second).toBe(loaded);
    const [request] = stub.requests;
    expect(request?.headers["x-amz-target"]).toBe("AmazonSSM.GetParameters");
    expect(request?.headers["content-type"]).toBe("application/x-amz-json-1.1");
    expect(request?.input.WithDecryption).toBe(true);
    expect([...(request?.input.Names ?? [])].sort()).toEqual(["/blog/prod/app-secret", "/blog/prod/auth-signing-key", "/blog/prod/idp-client-secret"]);
    // The function's application is composed with what was read (lib/core/compose.ts).
    expect(secretValue("APP_SECRET", env, loaded)).toBe(APP_SECRET);
    expect(secretValue("AUTH_SIGNING_KEY", env, loaded)).toBe(SIGNING_KEY);
    expect(secretValue("IDP_CLIENT_SECRET", env, loaded)).toBe(CLIENT_SECRET);
  });

  it("signs the call for SSM in the function's region, with its session token, as AWS checks a SigV4 signature", async () => {
    const { loadSecrets } = await coldStart();
    await loadSecrets(lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret" }));
    const request = stub.requests[0] as NonNullable<(typeof stub.requests)[0]>;
    const verified = await verifySigV4(request, credentials);
    expect(verified).toMatchObject({ valid: true, accessKeyId: credentials.accessKeyId, region: "us-east-1", service: "ssm" });
    // What it says and what it carries are signed: the action, the body's hash, the session.
    expect(verified.signedHeaders).toEqual(
      expect.arrayContaining(["content-type", "host", "x-amz-content-sha256", "x-amz-date", "x-amz-security-token", "x-amz-target"]),
    );
    expect(request.headers["x-amz-security-token"]).toBe(credentials.sessionToken);
    expect(request).toMatchObject({ method: "POST", url: "/" });
    // The same request under another secret, or with another body, does not verify.
    expect((await verifySigV4(request, { ...credentials, secretAccessKey: "another-secret" })).valid).toBe(false);
    expect((await verifySigV4({ ...request, body: request.body.replace("app-secret", "other-secret") }, credentials)).valid).toBe(false);
  });

  it("signs what it sends to an endpoint with a path and a query, as the SDK joins them", async () => {
    const { loadSecrets } = await coldStart();
    const env = lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret", AWS_REGION: "eu-west-3" });
    await loadSecrets({ ...env, AWS_ENDPOINT_URL_SSM: `${stub.url}/proxy/./ssm?tenant=a%20b&tenant=c` });
    const request = stub.requests[0] as NonNullable<(typeof stub.requests)[0]>;
    expect(request.url).toBe("/proxy/ssm/?tenant=a%20b&tenant=c");
    expect(await verifySigV4(request, credentials)).toMatchObject({ valid: true, region: "eu-west-3", service: "ssm" });
  });

  it("reads nothing the function is not given, and asks nothing when it is given none", async () => {
    const env = lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret" });
    const { loadSecrets, secretValue } = await coldStart();
    const loaded = await loadSecrets(env);
    expect(stub.requests[0]?.input.Names).toEqual(["/blog/prod/app-secret"]);
    // Its environment's values are never taken: the secret store is the only source.
    expect(secretValue("AUTH_SIGNING_KEY", env, loaded)).toBeUndefined();
    expect(secretValue("IDP_CLIENT_SECRET", env, loaded)).toBeUndefined();
    // Another environment is another cold start: the loader keeps what it read per environment.
    await (await coldStart()).loadSecrets(lambdaEnv({}));
    expect(stub.requests).toHaveLength(1);
  });

  it("calls nothing outside a Lambda runtime: npm start and tests pass the values in the environment", async () => {
    const env = { IS_OFFLINE: "true", APP_SECRET: "local-secret", APP_SECRET_PARAMETER: "/blog/prod/app-secret", AWS_ENDPOINT_URL_SSM: stub.url };
    const { loadSecrets, secretValue } = await coldStart();
    const loaded = await loadSecrets(env);
    expect(stub.requests).toHaveLength(0);
    expect(loaded.size).toBe(0);
    expect(secretValue("APP_SECRET", env, loaded)).toBe("local-secret");
  });

  it("refuses to start when a parameter does not exist, naming it and no value", async () => {
    const error = await loadError(lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret", AUTH_SIGNING_KEY_PARAMETER: "/blog/prod/missing-key" }));
    expect(error.message).toMatch(/^SSM parameter '\/blog\/prod\/missing-key' \(AUTH_SIGNING_KEY_PARAMETER\) does not exist in us-east-1/);
    expect(error.message).not.toContain(APP_SECRET);
  });

  it("refuses to start when the role may not read a parameter, naming it and no value", async () => {
    stub.deny.add("/blog/prod/idp-client-secret");
    const error = await loadError(lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret", IDP_CLIENT_SECRET_PARAMETER: "/blog/prod/idp-client-secret" }));
    expect(error.message).toContain("'/blog/prod/idp-client-secret' (IDP_CLIENT_SECRET_PARAMETER)");
    expect(error.message).toContain("AccessDeniedException");
    expect(error.message).toContain("must allow ssm:GetParameters");
    for (const value of [APP_SECRET, CLIENT_SECRET]) expect(error.message).not.toContain(value);
    // Refused is not retried: one call.
    expect(stub.requests).toHaveLength(1);
  });

  it("refuses a plain String parameter: a secret is a SecureString", async () => {
    const error = await loadError(lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/plain" }));
    expect(error.message).toMatch(/'\/blog\/prod\/plain' \(APP_SECRET_PARAMETER\) must be a SecureString, not String/);
    expect(error.message).not.toContain("plain-value");
  });

  it("gives up on a stalled secret store after its attempts, each on its own timeout", async () => {
    stub.stall = true;
    const error = await loadError(lambdaEnv({ APP_SECRET_PARAMETER: "/blog/prod/app-secret" }));
    expect(error.message).toMatch(/^Reading SSM parameter '\/blog\/prod\/app-secret' \(APP_SECRET_PARAMETER\) failed, TimeoutError: no answer within/);
    const { SSM_TIMEOUTS } = await import("../../lib/core/secrets/ssm-call.ts");
    expect(stub.requests).toHaveLength(SSM_TIMEOUTS.attempts);
  }, 20_000);
});
