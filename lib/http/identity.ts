import type { HttpRequest } from "./request.ts";

/**
 * The seam through which the caller's identity reaches the domain. Until the authentication
 * service resolves sessions and access tokens here, the only identity is a local test hook: the
 * `x-test-user` header, honoured only under `serverless offline` (IS_OFFLINE) with the explicit
 * ALLOW_TEST_USER flag; a deployed stage has neither, so the header is ignored there.
 */
export const TEST_USER_HEADER = "x-test-user";

export function testUserHookEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.IS_OFFLINE === "true" && env.ALLOW_TEST_USER === "true" && env.AWS_EXECUTION_ENV === undefined;
}

export function resolveUserId(request: HttpRequest, env: NodeJS.ProcessEnv = process.env): string | undefined {
  // The header first: reading process.env is a native call each time, and almost no request
  // carries the header, so most requests never pay for the three reads of the hook's switch.
  const user = request.headers[TEST_USER_HEADER]?.trim();
  if (!user || !testUserHookEnabled(env)) return undefined;
  return user;
}
