import type { Fetcher } from "aws-jwt-verify/https";
import type { JwtPayload } from "aws-jwt-verify/jwt-model";

/** What fetches the provider's keys: the runtime's `fetch`, or a fault-injecting one in tests. */
export type KeysFetch = (url: string, init: RequestInit) => Promise<Response>;

/** The keys could not be read at all (network, timeout, an HTTP error): the provider, not the token, is at fault. */
export class KeysUnreachable extends Error {
  override readonly name = "KeysUnreachable";
}

/**
 * Fetches the JWKS for aws-jwt-verify's cache: one attempt with a timeout through `fetch`, so a
 * provider that does not answer costs a request its timeout, never more.
 */
class JwksFetcher implements Fetcher {
  constructor(
    private readonly fetchImpl: KeysFetch,
    private readonly timeoutMs: number,
  ) {}

  async fetch(uri: string): Promise<ArrayBuffer> {
    let response: Response;
    try {
      response = await this.fetchImpl(uri, { method: "GET", headers: { accept: "application/json" }, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      throw new KeysUnreachable(`the keys could not be fetched (${(error as Error).name})`);
    }
    if (!response.ok) throw new KeysUnreachable(`the keys answered ${response.status}`);
    return response.arrayBuffer();
  }
}

/**
 * The external provider's ID-token signatures, verified by aws-jwt-verify against the keys its
 * `jwks_uri` publishes: the key set is cached, and a token naming an unknown `kid` refetches it
 * (at most once per 10 s, aws-jwt-verify's penalty box). Only RS256/384/512, ES256/384/512 and
 * EdDSA verify: an HMAC "signed" with a public key, or `none`, never does. Our own tokens stay
 * with jose (lib/auth/access-token-verify.ts).
 */
interface LoadedVerifier {
  verify(token: string, audiences: string[]): Promise<JwtPayload>;
  keysError(error: unknown): boolean;
}

export class IdTokenKeys {
  private loaded: Promise<LoadedVerifier> | undefined;

  constructor(
    readonly issuer: string,
    private readonly jwksUri: string,
    private readonly options: { fetch?: KeysFetch; timeoutMs: number; graceSeconds: number },
  ) {}

  /**
   * aws-jwt-verify, loaded the first time a token is verified: the package does not declare itself
   * free of side effects, so a static import would put it in every bundle that builds the provider,
   * including the functions that never see an ID token.
   */
  private load(): Promise<LoadedVerifier> {
    this.loaded ??= Promise.all([import("aws-jwt-verify"), import("aws-jwt-verify/jwk"), import("aws-jwt-verify/error")]).then(
      ([{ JwtVerifier }, { SimpleJwksCache }, errors]) => {
        const cache = new SimpleJwksCache({ fetcher: new JwksFetcher(this.options.fetch ?? fetch, this.options.timeoutMs) });
        const verifier = JwtVerifier.create({ issuer: this.issuer, jwksUri: this.jwksUri, graceSeconds: this.options.graceSeconds }, { jwksCache: cache });
        // A key set that cannot be fetched or is no key set: the provider is at fault, not the token.
        const keysError = (error: unknown) => error instanceof errors.FetchError || error instanceof errors.JwksValidationError;
        return { verify: (token: string, audiences: string[]) => verifier.verify(token, { audience: audiences }), keysError };
      },
    );
    return this.loaded;
  }

  /** The token's payload once its signature, issuer, one of `audiences` and its times hold; throws otherwise. */
  async verify(token: string, audiences: string[]): Promise<JwtPayload> {
    const { verify, keysError } = await this.load();
    try {
      return await verify(token, audiences);
    } catch (error) {
      if (keysError(error)) throw new KeysUnreachable(`the keys could not be used (${(error as Error).name})`);
      throw error;
    }
  }
}

/** Whether a verification failed because the keys could not be had, rather than because of the token. */
export function keysUnavailable(error: unknown): boolean {
  return error instanceof KeysUnreachable;
}
