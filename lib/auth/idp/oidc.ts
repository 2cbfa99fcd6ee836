import type * as OpenIdClient from "openid-client";

/** The part of openid-client the provider runs (named, so that the rest of the library is not bundled). */
export type OpenIdProtocol = Pick<
  typeof OpenIdClient,
  | "allowInsecureRequests" | "authorizationCodeGrant" | "AuthorizationResponseError" | "buildAuthorizationUrl" | "calculatePKCECodeChallenge"
  | "ClientSecretBasic" | "customFetch" | "discovery" | "randomNonce" | "randomPKCECodeVerifier" | "randomState" | "ResponseBodyError"
>;

/**
 * openid-client (with oauth4webapi, ~31 KB) is handed to the provider by the function that serves
 * the Idp routes (functions/auth.ts, through ./oidc-protocol.ts) and by the tests' setup, as the
 * SES transport is: the other functions configure the provider but never run its protocol, and do
 * not carry the library.
 */
let protocol: OpenIdProtocol | undefined;

export function useOpenIdClient(module: OpenIdProtocol): void {
  protocol = module;
}

export function openIdClient(): OpenIdProtocol {
  if (!protocol) throw new Error("this function cannot sign in with an OpenID Connect provider: call useOpenIdClient(...) at its module scope (functions/auth.ts does)");
  return protocol;
}
