import { createHash, hkdfSync } from "node:crypto";
import { EncryptJWT, jwtDecrypt } from "jose";

/**
 * The browser flow's state lives in a cookie of its own, never in the session: a JWE
 * (`dir`, A256GCM) under a key derived from APP_SECRET, so the client can neither read the PKCE
 * verifier and nonce nor change the target. HttpOnly; SameSite=Lax so that the provider's
 * top-level redirect back to the callback carries it; scoped to the provider's url; 10 minutes.
 * Its name is the session cookie's with the Idp suffix (`sessionIdp` by default).
 */
export const IDP_COOKIE_SUFFIX = "Idp";
export const STATE_LIFETIME_SECONDS = 600;

export interface FlowState {
  /** The OAuth `state` sent to the provider; also the cookie's single-use id. */
  state: string;
  nonce: string;
  verifier: string;
  /** The checked post-login target. */
  target: string;
  /** The redirect_uri sent with the authorization request (the code exchange repeats it). */
  redirectUri: string;
}

function stateKey(secret: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, "idp-state", "idp-state-cookie-v1", 32));
}

export async function sealState(flow: FlowState, secret: string): Promise<string> {
  return new EncryptJWT({ ...flow })
    .setProtectedHeader({ alg: "dir", enc: "A256GCM" })
    .setIssuedAt()
    .setExpirationTime(`${STATE_LIFETIME_SECONDS}s`)
    .encrypt(stateKey(secret));
}

/** The flow state, or undefined when the cookie is missing, tampered with, foreign or expired. */
export async function openState(sealed: string | undefined, secret: string): Promise<FlowState | undefined> {
  if (!sealed || sealed.length > 4096) return undefined;
  try {
    const { payload } = await jwtDecrypt(sealed, stateKey(secret), { keyManagementAlgorithms: ["dir"], contentEncryptionAlgorithms: ["A256GCM"] });
    const { state, nonce, verifier, target, redirectUri } = payload;
    if ([state, nonce, verifier, target, redirectUri].some((v) => typeof v !== "string")) return undefined;
    return { state, nonce, verifier, target, redirectUri } as FlowState;
  } catch {
    return undefined;
  }
}

/** The id under which a used state is remembered: a digest, so the table holds nothing replayable. */
export function stateId(state: string): string {
  return createHash("sha256").update(state).digest("hex");
}

export function stateCookie(name: string, value: string, path: string, secure: boolean): string {
  return `${name}=${value}; Path=${path}; Max-Age=${STATE_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** Every answer of the callback clears the cookie: a state is used once, successful or not. */
export function clearedStateCookie(name: string, path: string, secure: boolean): string {
  return `${name}=; Path=${path}; Max-Age=0; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The cookie's value among the request's cookies (`name=value` strings). */
export function readCookie(cookies: readonly string[], name: string): string | undefined {
  for (const cookie of cookies) {
    for (const part of cookie.split(/;\s*/)) {
      const eq = part.indexOf("=");
      if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}
