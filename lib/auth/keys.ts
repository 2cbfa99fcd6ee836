import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { ConfigurationError } from "../core/config.ts";
import { isLocalOffline, localSecret } from "../core/local-secret.ts";
import { secretOrigin, secretValue, type LoadedSecrets } from "../core/secrets/values.ts";

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

/** The first key of the set signs; every key verifies (rotation: add the new key first). */
export interface Signer {
  key: KeyObject;
  kid: string;
}

export interface SigningKeys extends AccessKeys {
  signer: Signer;
}

/** What verifying needs; a function given only the public set (AUTH_PUBLIC_KEYS) has no signer. */
export interface AccessKeys {
  signer?: Signer;
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
  return createHash("sha256")
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x }))
    .digest("base64url");
}

type KeyOrigin = string;

function parseSet(text: string, origin: KeyOrigin, what: string): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigurationError(`${origin} is not JSON: give ${what}`);
  }
  const keys = (
    value && typeof value === "object" && Array.isArray((value as { keys?: unknown }).keys) ? (value as { keys: unknown[] }).keys : [value]
  ) as Record<string, unknown>[];
  if (keys.length === 0) throw new ConfigurationError(`${origin} holds no key`);
  for (const key of keys) {
    if (!key || typeof key !== "object" || key.kty !== "OKP" || key.crv !== "Ed25519" || typeof key.x !== "string") {
      throw new ConfigurationError(`${origin} must hold ${what} (kty OKP, crv Ed25519)`);
    }
    if (key.kid !== undefined && typeof key.kid !== "string") throw new ConfigurationError(`${origin}: a key's kid must be a string`);
  }
  return keys;
}

function parse(text: string, origin: KeyOrigin = "AUTH_SIGNING_KEY"): PrivateJwk[] {
  const keys = parseSet(text, origin, "Ed25519 private JWKs (or a JWK set, signing key first)");
  if (keys.some((key) => typeof key.d !== "string"))
    throw new ConfigurationError(`${origin} must hold Ed25519 private JWKs (kty OKP, crv Ed25519, with d and x)`);
  return keys as PrivateJwk[];
}

/** The public set a function that only verifies is given; a private member there would publish the key. */
function parsePublic(text: string, origin: KeyOrigin = PUBLIC_KEYS_VARIABLE): PublicJwk[] {
  const keys = parseSet(text, origin, "the public Ed25519 JWK set (`npx webda keygen --public < private.jwk`)");
  if (keys.some((key) => key.d !== undefined))
    throw new ConfigurationError(`${origin} holds a private key (d): give the public set only (\`npx webda keygen --public\`)`);
  return keys.map((key) => ({
    kty: "OKP",
    crv: "Ed25519",
    x: key.x as string,
    kid: (key.kid as string | undefined) ?? jwkThumbprint(key as { crv: string; kty: string; x: string }),
    alg: SIGNING_ALG,
    use: "sig",
  }));
}

/**
 * The functions that only verify access tokens are given the public halves, a value rendered into
 * their configuration at packaging (the `authPublicKeys` deploy parameter), not the private key.
 */
export const PUBLIC_KEYS_VARIABLE = "AUTH_PUBLIC_KEYS";

function publicKeySource(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[PUBLIC_KEYS_VARIABLE];
  // serverless offline passes an unset `${param:x, null}` as the string "null".
  return value && value !== "null" && value !== "unset" ? value : undefined;
}

/** The public set of a private key or set: what `webda keygen --public` prints and `authPublicKeys` holds. */
export function publicKeySet(privateSource: string): { keys: PublicJwk[] } {
  return {
    keys: parse(privateSource).map((jwk) => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: jwk.kid ?? jwkThumbprint(jwk), alg: SIGNING_ALG, use: "sig" })),
  };
}

/**
 * The private signing key: from the secret store in a Lambda runtime (read at cold start, never
 * from its environment), from AUTH_SIGNING_KEY elsewhere; only `serverless offline` may generate
 * one, once, under `.data/`. Nothing falls back to a key written in the code.
 */
function privateKeySource(env: NodeJS.ProcessEnv, loaded: LoadedSecrets): string | undefined {
  const given = secretValue("AUTH_SIGNING_KEY", env, loaded);
  if (given) return given;
  if (isLocalOffline(env)) return localSecret(LOCAL_KEY_FILE, () => JSON.stringify(generateSigningJwk()), env);
  return undefined;
}

function notSet(env: NodeJS.ProcessEnv): ConfigurationError {
  return new ConfigurationError(
    `AUTH_SIGNING_KEY is not set, from ${secretOrigin("AUTH_SIGNING_KEY", env)} (a function that only verifies access tokens is given ${PUBLIC_KEYS_VARIABLE} instead; see docs/deploying.md, "Secrets")`,
  );
}

/**
 * A Lambda runtime checks its keys' shape at cold start, rather than start and fail its callers:
 * the private key when it has one (and that the published public set holds its public halves),
 * else the public set. Parsing only: the keys are imported at their first use.
 */
export function checkAccessKeys(loaded: LoadedSecrets, env: NodeJS.ProcessEnv = process.env): void {
  const privateSource = privateKeySource(env, loaded);
  const publicSource = publicKeySource(env);
  if (!privateSource && !publicSource) throw notSet(env);
  const published = publicSource ? parsePublic(publicSource) : undefined;
  const signing = privateSource ? parse(privateSource, secretOrigin("AUTH_SIGNING_KEY", env)) : [];
  if (!published) return;
  for (const jwk of signing) {
    const kid = jwk.kid ?? jwkThumbprint(jwk);
    if (!published.some((key) => key.kid === kid && key.x === jwk.x)) {
      throw new ConfigurationError(
        `${PUBLIC_KEYS_VARIABLE} (the authPublicKeys deploy parameter) lacks the public half of the signing key '${kid}' from ${secretOrigin("AUTH_SIGNING_KEY", env)}: tokens it signs would not verify elsewhere`,
      );
    }
  }
}

function importPair(jwk: PrivateJwk, origin: KeyOrigin): { privateKey: KeyObject; publicKey: KeyObject } {
  try {
    const privateKey = createPrivateKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, format: "jwk" });
    // The verifying key is d's own public half; a published x that is not it would serve a JWKS
    // that verifies none of our tokens.
    const publicKey = createPublicKey(privateKey);
    if ((publicKey.export({ format: "jwk" }) as { x?: string }).x !== jwk.x) throw new Error("x is not the public half of d");
    return { privateKey, publicKey };
  } catch (cause) {
    throw new ConfigurationError(`${origin} holds an unusable Ed25519 key: ${(cause as Error).message}`);
  }
}

export async function loadSigningKeys(source: string, origin: KeyOrigin = "AUTH_SIGNING_KEY"): Promise<SigningKeys> {
  const jwks: PublicJwk[] = [];
  const verifiers: SigningKeys["verifiers"] = [];
  let signer: SigningKeys["signer"] | undefined;
  for (const jwk of parse(source, origin)) {
    const kid = jwk.kid ?? jwkThumbprint(jwk);
    const { privateKey, publicKey } = importPair(jwk, origin);
    jwks.push({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: SIGNING_ALG, use: "sig" });
    verifiers.push({ kid, key: publicKey });
    signer ??= { key: privateKey, kid };
  }
  if (!signer) throw new ConfigurationError(`${origin} holds no key`);
  return { signer, jwks: { keys: jwks }, verifiers };
}

/** The public keys only: what a function that never signs verifies with. */
export function loadVerifyingKeys(source: string, origin: KeyOrigin = PUBLIC_KEYS_VARIABLE): AccessKeys {
  const keys = parsePublic(source, origin);
  try {
    const verifiers = keys.map((jwk) => ({ kid: jwk.kid, key: createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" }) }));
    return { jwks: { keys }, verifiers };
  } catch (cause) {
    throw new ConfigurationError(`${origin} holds an unusable Ed25519 key: ${(cause as Error).message}`);
  }
}

/** This function's keys: the private set when it has one (it may sign), else the public set. */
export async function loadAccessKeys(loaded: LoadedSecrets, env: NodeJS.ProcessEnv = process.env): Promise<AccessKeys> {
  const privateSource = privateKeySource(env, loaded);
  if (privateSource) return loadSigningKeys(privateSource, secretOrigin("AUTH_SIGNING_KEY", env));
  const publicSource = publicKeySource(env);
  if (publicSource) return loadVerifyingKeys(publicSource);
  throw notSet(env);
}
