import {
  allowInsecureRequests,
  authorizationCodeGrant,
  AuthorizationResponseError,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientSecretBasic,
  customFetch,
  discovery,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  ResponseBodyError,
} from "openid-client";
import type { OpenIdProtocol } from "./oidc.ts";

/** What functions/auth.ts gives the Idp provider (lib/auth/idp/oidc.ts): named imports only. */
export const openIdProtocol: OpenIdProtocol = {
  allowInsecureRequests,
  authorizationCodeGrant,
  AuthorizationResponseError,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  ClientSecretBasic,
  customFetch,
  discovery,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  ResponseBodyError,
};
