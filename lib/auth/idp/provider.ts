import type * as Oidc from "openid-client";
import { openIdClient } from "./oidc.ts";
import { isLocalOffline } from "../../core/local-secret.ts";
import { IdpProviderDescription } from "./description.ts";
import { IdTokenKeys } from "./id-token-keys.ts";
import type { IdpOptions } from "./options.ts";
import { authenticationOf } from "../index.ts";
import type { AuthRoute } from "../routes/route.ts";
import { IdpRefusal } from "./refusal.ts";
import { idpRoutes } from "./routes.ts";
import { IDP_COOKIE_SUFFIX } from "./state-cookie.ts";
import { allowedPrefixes, type AllowedPrefix } from "./targets.ts";
import { usedStatesFromEnv, type UsedStates } from "./used-states.ts";

/** What the provider needs from its surroundings; tests replace `fetch` only to inject faults. */
export type IdpFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface IdpRuntime {
  env: NodeJS.ProcessEnv;
  fetch?: IdpFetch;
  usedStates?: UsedStates;
}

const HTTP_TIMEOUT_SECONDS = 5;
/** How far a token's times may be off the provider's clock. */
const CLOCK_TOLERANCE_SECONDS = 30;

function loopback(url: URL): boolean {
  return url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
}

/**
 * `Framework/IdpProvider`: logs users in with any OpenID Connect provider (Google, Cognito, Auth0,
 * Keycloak, the local development provider). The protocol goes through openid-client (discovery,
 * PKCE, state, code exchange and its ID token claim checks); the ID token's signature is verified
 * against the provider's JWKS with aws-jwt-verify, the same way for the browser flow and for token login.
 */
export class IdpProvider extends IdpProviderDescription {
  readonly prefixes: AllowedPrefix[];
  private runtimeValue: IdpRuntime = { env: process.env };
  private discovered: Promise<Oidc.Configuration> | undefined;
  private jwks: IdTokenKeys | undefined;
  private usedStatesValue: UsedStates | undefined;

  constructor(name: string, options: IdpOptions) {
    super(name, options);
    this.prefixes = allowedPrefixes(options.authorized_uris);
  }

  /** Replaces the environment, fetch or used-state store (tests); clears what was derived from them. */
  useRuntime(runtime: IdpRuntime): this {
    this.runtimeValue = runtime;
    this.discovered = undefined;
    this.jwks = undefined;
    this.usedStatesValue = runtime.usedStates;
    return this;
  }

  get env(): NodeJS.ProcessEnv {
    return this.runtimeValue.env;
  }

  get usedStates(): UsedStates {
    this.usedStatesValue ??= usedStatesFromEnv(this.env);
    return this.usedStatesValue;
  }

  get callbackPath(): string {
    return `${this.options.url}/callback`;
  }

  /** Under `serverless offline` the cookies go over plain http on loopback; everywhere else Secure. */
  get secureCookies(): boolean {
    return !isLocalOffline(this.env);
  }

  /** The state cookie: the session cookie's name with the Idp suffix, so the two never collide. */
  get stateCookieName(): string {
    return `${authenticationOf(this.app)?.cookieName ?? "session"}${IDP_COOKIE_SUFFIX}`;
  }

  /** Keys the state cookie: the application secret (no built-in fallback outside offline). */
  get secret(): string {
    return this.app.secret(this.env);
  }

  /** The redirect URI sent to the provider: the configured one, else `<origin of the request><url>/callback`. */
  redirectUri(requestOrigin: string): string {
    return this.options.redirect_uri ?? new URL(this.callbackPath, requestOrigin).href;
  }

  /** A Lambda runtime's was read from the secret store at cold start, never from its environment. */
  private clientSecret(): string | undefined {
    return this.app.secretValue("IDP_CLIENT_SECRET", this.env);
  }

  /** The provider's metadata, discovered once per cold start (a failed discovery is retried next time). */
  configuration(): Promise<Oidc.Configuration> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  private async discover(): Promise<Oidc.Configuration> {
    const secret = this.clientSecret();
    if (!secret) throw new IdpRefusal("PROVIDER_UNAVAILABLE", "IDP_CLIENT_SECRET is not set");
    const oidc = openIdClient(this.app);
    const issuer = new URL(this.options.issuer);
    const options: Oidc.DiscoveryRequestOptions = { timeout: HTTP_TIMEOUT_SECONDS };
    // Plain http only for an issuer on loopback (the local development provider).
    if (issuer.protocol === "http:" && loopback(issuer)) options.execute = [oidc.allowInsecureRequests];
    if (this.runtimeValue.fetch) options[oidc.customFetch] = this.runtimeValue.fetch as Oidc.CustomFetch;
    try {
      return await oidc.discovery(issuer, this.options.clientId, undefined, oidc.ClientSecretBasic(secret), options);
    } catch (error) {
      throw new IdpRefusal("PROVIDER_UNAVAILABLE", `discovery failed (${(error as Error).name})`);
    }
  }

  /** The provider's published signing keys (aws-jwt-verify caches them and refetches on an unknown `kid`). */
  async keys(): Promise<{ issuer: string; keys: IdTokenKeys }> {
    const metadata = (await this.configuration()).serverMetadata();
    if (!metadata.jwks_uri) throw new IdpRefusal("PROVIDER_UNAVAILABLE", "the provider publishes no jwks_uri");
    this.jwks ??= new IdTokenKeys(metadata.issuer, metadata.jwks_uri, {
      ...(this.runtimeValue.fetch ? { fetch: this.runtimeValue.fetch } : {}),
      timeoutMs: HTTP_TIMEOUT_SECONDS * 1000,
      graceSeconds: CLOCK_TOLERANCE_SECONDS,
    });
    return { issuer: metadata.issuer, keys: this.jwks };
  }

  /** Served by the authentication service's function (lib/auth/routes), like the email provider's. */
  authRoutes(): AuthRoute[] {
    return idpRoutes(this);
  }

  /** Accepted `aud` values of ID tokens given to token login. */
  get audiences(): string[] {
    return [this.options.clientId, ...this.options.audiences];
  }
}

export function idpProviders(services: readonly { service: unknown }[]): IdpProvider[] {
  return services.map((s) => s.service).filter((s): s is IdpProvider => s instanceof IdpProvider);
}
