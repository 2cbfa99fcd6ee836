import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { ConfigurationError } from "../core/config.ts";
import { isLocalOffline, localSecret } from "../core/local-secret.ts";

// No jose here: every function that identifies callers loads these keys, and jose's parsing
// costs their cold start (bundle bytes). node:crypto reads JWKs itself.

export const SIGNING_ALG = "EdDSA";
export const LOCAL_KEY_FILE = "auth-signing-key.json";

/** An Ed25519 private key as a JWK (RFC 8037). */
export interface PrivateJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
  kid?: string;
  [member: string]: unknown;
}

/**
 * A public key as `GET /.well-known/jwks.json` serves it; the member order is the served one.
 * A type, not an interface, so that it reads as a plain record of strings where one is wanted.
 */
export type PublicJwk = {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: typeof SIGNING_ALG;
  use: "sig";
};

export interface SigningKeys {
  /** The first key of the set signs; every key verifies (rotation: add the new key first). */
  signer: { key: KeyObject; kid: string };
  /** The public halves, as `GET /.well-known/jwks.json` serves them. */
  jwks: { keys: PublicJwk[] };
  /** The same keys, ready to verify with, in the set's order. */
  verifiers: { kid: string; key: KeyObject }[];
}

/** A fresh Ed25519 private key as a JWK: what `npm start` keeps under `.data/` and what a deploy is given. */
export function generateSigningJwk(): PrivateJwk {
  const { privateKey } = generateKeyPairSync("ed25519");
  return privateKey.export({ format: "jwk" }) as PrivateJwk;
}

/** RFC 7638: SHA-256 over the required members in lexicographic order; tokens in flight carry it as kid. */
export function jwkThumbprint(jwk: { crv: string; kty: string; x: string }): string {
  return createHash("sha256").update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).digest("base64url");
}

function parse(text: string): PrivateJwk[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigurationError("AUTH_SIGNING_KEY is not JSON: give an Ed25519 private JWK (or a JWK set, signing key first)");
  }
  const keys = (value && typeof value === "object" && Array.isArray((value as { keys?: unknown }).keys) ? (value as { keys: unknown[] }).keys : [value]) as Partial<PrivateJwk>[];
  if (keys.length === 0) throw new ConfigurationError("AUTH_SIGNING_KEY holds no key");
  for (const key of keys) {
    if (!key || key.kty !== "OKP" || key.crv !== "Ed25519" || typeof key.x !== "string" || typeof key.d !== "string") {
      throw new ConfigurationError("AUTH_SIGNING_KEY must hold Ed25519 private JWKs (kty OKP, crv Ed25519, with d and x)");
    }
    if (key.kid !== undefined && typeof key.kid !== "string") throw new ConfigurationError("AUTH_SIGNING_KEY: a key's kid must be a string");
  }
  return keys as PrivateJwk[];
}

/**
 * The private signing key comes from the `authSigningKey` deploy parameter (or a secret store
 * resolved into it at deploy); only `serverless offline` may generate one, once, under `.data/`.
 * Nothing falls back to a key written in the code.
 */
export function signingKeySource(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.AUTH_SIGNING_KEY && env.AUTH_SIGNING_KEY !== "unset" ? env.AUTH_SIGNING_KEY : undefined;
  if (given) return given;
  if (isLocalOffline(env)) return localSecret(LOCAL_KEY_FILE, () => JSON.stringify(generateSigningJwk()), env);
  throw new ConfigurationError("AUTH_SIGNING_KEY is not set: deploy with --param authSigningKey='<Ed25519 private JWK>' (see README, Authentication)");
}

function importPair(jwk: PrivateJwk): { privateKey: KeyObject; publicKey: KeyObject } {
  try {
    const privateKey = createPrivateKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, format: "jwk" });
    // The verifying key is d's own public half; a published x that is not it would serve a JWKS
    // that verifies none of our tokens.
    const publicKey = createPublicKey(privateKey);
    if ((publicKey.export({ format: "jwk" }) as { x?: string }).x !== jwk.x) throw new Error("x is not the public half of d");
    return { privateKey, publicKey };
  } catch (cause) {
    throw new ConfigurationError(`AUTH_SIGNING_KEY holds an unusable Ed25519 key: ${(cause as Error).message}`);
  }
}

export async function loadSigningKeys(source: string): Promise<SigningKeys> {
  const jwks: PublicJwk[] = [];
  const verifiers: SigningKeys["verifiers"] = [];
  let signer: SigningKeys["signer"] | undefined;
  for (const jwk of parse(source)) {
    const kid = jwk.kid ?? jwkThumbprint(jwk);
    const { privateKey, publicKey } = importPair(jwk);
    jwks.push({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: SIGNING_ALG, use: "sig" });
    verifiers.push({ kid, key: publicKey });
    signer ??= { key: privateKey, kid };
  }
  if (!signer) throw new ConfigurationError("AUTH_SIGNING_KEY holds no key");
  return { signer, jwks: { keys: jwks }, verifiers };
}
