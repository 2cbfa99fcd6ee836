import { describe, expect, it } from "vitest";
import { resolveUserId, testUserHookEnabled } from "./identity.ts";
import type { HttpRequest } from "./request.ts";

const request = (headers: Record<string, string>): HttpRequest => ({
  method: "GET",
  path: "/",
  headers,
  query: {},
  cookies: [],
  body: undefined,
  requestId: "r",
  routeKey: "$default",
  sourceIp: undefined,
  payloadVersion: "2.0",
});

describe("the local test-user hook", () => {
  it("is honoured only offline, with the explicit flag, outside a Lambda runtime", () => {
    expect(testUserHookEnabled({ IS_OFFLINE: "true", ALLOW_TEST_USER: "true" })).toBe(true);
    expect(testUserHookEnabled({ ALLOW_TEST_USER: "true" })).toBe(false);
    expect(testUserHookEnabled({ IS_OFFLINE: "true" })).toBe(false);
    expect(testUserHookEnabled({ IS_OFFLINE: "true", ALLOW_TEST_USER: "true", AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" })).toBe(false);
  });

  it("reads the header only when enabled", () => {
    const on = { IS_OFFLINE: "true", ALLOW_TEST_USER: "true" };
    expect(resolveUserId(request({ "x-test-user": " alice " }), on)).toBe("alice");
    expect(resolveUserId(request({ "x-test-user": "alice" }), { ...on, AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" })).toBeUndefined();
    expect(resolveUserId(request({}), on)).toBeUndefined();
  });
});
