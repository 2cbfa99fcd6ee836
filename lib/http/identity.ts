import type { Application } from "../core/application.ts";
import { identityOf, type Identity } from "../core/identity.ts";
import { OriginRefusedError } from "./errors.ts";
import { isStateChanging, originAllowed } from "./origin.ts";
import type { HttpRequest } from "./request.ts";

/**
 * The seam through which the caller's identity reaches the domain, for every HTTP face (REST,
 * GraphQL, the auth routes): `Authorization: Bearer <access token>` first, else the session
 * cookie, both resolved by the authentication service through lib/core's identity port
 * (lib/core/identity.ts). The `x-test-user` header is a local test hook, honoured only under
 * `serverless offline` (IS_OFFLINE) with the explicit ALLOW_TEST_USER flag and outside a Lambda
 * runtime; a deployed stage has neither, so the header is ignored there.
 */
export const TEST_USER_HEADER = "x-test-user";

export function testUserHookEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.IS_OFFLINE === "true" && env.ALLOW_TEST_USER === "true" && env.AWS_EXECUTION_ENV === undefined;
}

/** The test hook's user, if the hook is on and the header given. */
export function resolveUserId(request: HttpRequest, env: NodeJS.ProcessEnv = process.env): string | undefined {
  // The header first: reading process.env is a native call each time, and almost no request
  // carries the header, so most requests never pay for the three reads of the hook's switch.
  const user = request.headers[TEST_USER_HEADER]?.trim();
  if (!user || !testUserHookEnabled(env)) return undefined;
  return user;
}

export interface IdentityOptions {
  /** Refuse a cookie-authenticated write from a foreign origin (off only for the Idp routes). */
  csrf?: boolean;
}

export async function resolveIdentity(app: Application, request: HttpRequest, options: IdentityOptions = {}): Promise<Identity> {
  const testUser = resolveUserId(request);
  if (testUser) return { userId: testUser, via: "test" };
  const port = identityOf(app);
  if (!port) return {};
  if (!request.headers.authorization && request.cookies.length === 0) return {};
  const identity = await port.identify({ authorization: request.headers.authorization, cookies: request.cookies });
  if (
    identity.via === "cookie" &&
    (options.csrf ?? true) &&
    isStateChanging(request.method) &&
    !originAllowed(request, app.definition.rest?.corsOrigins ?? [])
  ) {
    throw new OriginRefusedError("A cookie-authenticated write must come from an allowed Origin");
  }
  return identity;
}
