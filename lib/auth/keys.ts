import { generateKeyPairSync } from "node:crypto";
import { calculateJwkThumbprint, createLocalJWKSet, importJWK, type CryptoKey, type JWK, type JWTVerifyGetKey } from "jose";
import { ConfigurationError } from "../core/config.ts";
import { isLocalOffline, localSecret } from "../core/local-secret.ts";

export const SIGNING_ALG = "EdDSA";
export const LOCAL_KEY_FILE = "auth-signing-key.json";

export interface SigningKeys {
  /** The first key of the set signs; every key verifies (rotation: add the new key first). */
  signer: { key: CryptoKey; kid: string };
  /** The public halves, as `GET /.well-known/jwks.json` serves them. */
  jwks: { keys: JWK[] };
  getKey: JWTVerifyGetKey;
}

/** A fresh Ed25519 private key as a JWK: what `npm start` keeps under `.data/` and what a deploy is given. */
export function generateSigningJwk(): JWK {
  const { privateKey } = generateKeyPairSync("ed25519");
  return privateKey.export({ format: "jwk" }) as JWK;
}

function parse(text: string): JWK[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigurationError("AUTH_SIGNING_KEY is not JSON: give an Ed25519 private JWK (or a JWK set, signing key first)");
  }
  const keys = (value && typeof value === "object" && Array.isArray((value as { keys?: unknown }).keys) ? (value as { keys: unknown[] }).keys : [value]) as JWK[];
  if (keys.length === 0) throw new ConfigurationError("AUTH_SIGNING_KEY holds no key");
  for (const key of keys) {
    if (!key || key.kty !== "OKP" || key.crv !== "Ed25519" || typeof key.x !== "string" || typeof key.d !== "string") {
      throw new ConfigurationError("AUTH_SIGNING_KEY must hold Ed25519 private JWKs (kty OKP, crv Ed25519, with d and x)");
    }
  }
  return keys;
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

export async function loadSigningKeys(source: string): Promise<SigningKeys> {
  const jwks: JWK[] = [];
  let signer: SigningKeys["signer"] | undefined;
  for (const jwk of parse(source)) {
    const { d: _private, ...publicPart } = jwk;
    const kid = jwk.kid ?? (await calculateJwkThumbprint(publicPart));
    jwks.push({ kty: publicPart.kty, crv: publicPart.crv, x: publicPart.x, kid, alg: SIGNING_ALG, use: "sig" } as JWK);
    if (!signer) signer = { key: (await importJWK({ ...jwk, kid }, SIGNING_ALG)) as CryptoKey, kid };
  }
  if (!signer) throw new ConfigurationError("AUTH_SIGNING_KEY holds no key");
  return { signer, jwks: { keys: jwks }, getKey: createLocalJWKSet({ keys: jwks }) };
}
