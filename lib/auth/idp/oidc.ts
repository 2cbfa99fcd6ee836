import type * as OpenIdClient from "openid-client";
import type { Application } from "../../core/application.ts";
import { Capability } from "../../core/capability.ts";

/** The part of openid-client the provider runs (named, so that the rest of the library is not bundled). */
export type OpenIdProtocol = Pick<
  typeof OpenIdClient,
  | "allowInsecureRequests"
  | "authorizationCodeGrant"
  | "AuthorizationResponseError"
  | "buildAuthorizationUrl"
  | "calculatePKCECodeChallenge"
  | "ClientSecretBasic"
  | "customFetch"
  | "discovery"
  | "randomNonce"
  | "randomPKCECodeVerifier"
  | "randomState"
  | "ResponseBodyError"
>;

/**
 * openid-client (with oauth4webapi, ~31 KB) is a capability of the function that serves the Idp
 * routes (functions/auth.ts composes it with ./oidc-protocol.ts) and of the tests: the other
 * functions configure the provider but never run its protocol, and do not carry the library. The
 * auth function's composition requires it (lib/auth/auth-function.ts), so that function cannot
 * start without it; an application run from source (the CLI, `npm start`'s tools) never runs the
 * protocol and is built without it.
 */
export const OPENID_CLIENT = new Capability<OpenIdProtocol>(
  "OpenID client",
  "compose the function that serves the Idp routes with `openIdClient` (lib/auth/idp/oidc-protocol.ts; functions/auth.ts does)",
);

export function openIdClient(app: Application): OpenIdProtocol {
  return app.requireCapability(OPENID_CLIENT);
}
