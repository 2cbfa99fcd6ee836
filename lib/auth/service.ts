import { randomUUID } from "node:crypto";
import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import { ConfigurationError } from "../core/config.ts";
import { errorFields, log } from "../core/log.ts";
import { countEvent } from "../core/metrics.ts";
import { AccessAuthentication } from "./access.ts";
import { signAccessToken } from "./access-token.ts";
import { clearedCookie, sessionCookie } from "./cookies.ts";
import { deriveKey, sha256Hex } from "./crypto.ts";
import { AuthError } from "./errors.ts";
import { loginWithProvider } from "./link.ts";
import { Idents } from "./idents.ts";
import { configuredIssuers } from "./idp-keys.ts";
import { RefreshTokens } from "./refresh.ts";
import { Sessions } from "./sessions.ts";
import { readV3Idents } from "./v3/compatibility.ts";
import { IDENTS, identShape, REFRESH, refreshShape } from "./tables.ts";
import type { AuthProvider, Identity, LoginOptions, LoginResult, ProviderIdentity, TokenResponse } from "./types.ts";

export type { Credentials } from "./access.ts";

interface Parts {
  refresh: RefreshTokens;
  idents: Idents;
}

/**
 * `Framework/Authentication`: sessions, access JWTs and rotating refresh tokens for every provider.
 * Providers (email/password, Idp) prove who someone is; this service turns that into credentials
 * and turns credentials back into a current user (the latter is AccessAuthentication's, ./access.ts).
 */
export class AuthenticationService extends AccessAuthentication {
  private parts: Parts | undefined;

  private get built(): Parts {
    if (!this.parts) {
      const secret = this.app.secret();
      this.parts = {
        refresh: new RefreshTokens(this.app.tableRepository(REFRESH, refreshShape), deriveKey(secret, "refresh-successor"), () => this.now()),
        idents: new Idents(this.app.tableRepository(IDENTS, identShape), deriveKey(secret, "ident-tokens"), () => new Date(this.now())),
      };
      // lib/auth/v3 plugs into the two hooks (CONTRACT.md); with compatibility off, v3 rows are ignored.
      // v3 password hashes are verified whatever it says (lib/auth/v3/hash-verifier.ts).
      const issuers = configuredIssuers(this.app.services());
      this.parts.idents.useIdpIssuers(issuers);
      if (this.options.compatibility.v3) readV3Idents(this.parts.idents, this.app.tableRepository(IDENTS, identShape), secret, issuers);
    }
    return this.parts;
  }

  get refreshTokens(): RefreshTokens {
    return this.built.refresh;
  }

  /** Ident lookups (`idents.find(provider, providerUid)`); v3's legacy reader plugs in here. */
  get idents(): Idents {
    return this.built.idents;
  }

  providers(): AuthProvider[] {
    return this.app.services().flatMap((entry) => ("providerName" in entry.service ? [entry.service as unknown as AuthProvider] : []));
  }

  private async tokens(user: string, sid: string, refreshToken: string, iat: number, jti: string): Promise<TokenResponse> {
    const settings = this.tokenSettings();
    const keys = await this.keys();
    // Only a function given the private key issues credentials; one given the public set never should.
    if (!keys.signer)
      throw new ConfigurationError(
        "This function has the public keys only (AUTH_PUBLIC_KEYS) and cannot sign access tokens: give it the signing key's parameter",
      );
    const access = await signAccessToken({ ...keys, signer: keys.signer }, settings, { sub: user, sid, jti, iat });
    return {
      user: await this.userView(user),
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.max(0, iat + settings.lifetime - Math.floor(this.now() / 1000)),
      refresh_token: refreshToken,
    };
  }

  /**
   * A new session (cookie), refresh-token family and access token for a proven user. `ident`: the
   * key of the ident that proved it. A password login passes the credential `generation` it read
   * before reading the hash it verified, so a change or recovery that lands in between ends the
   * session (sessions.ts); without one, the current generation.
   */
  async login(userId: string, provider: string, opened: { ident?: string; generation?: number } = {}): Promise<LoginResult> {
    countEvent("Logins");
    const { token, row } = await this.sessions.create(userId, this.options.session.lifetime, {
      generation: opened.generation ?? (await this.sessions.generation(userId)),
      ...(opened.ident ? { ident: opened.ident } : {}),
    });
    const refresh = await this.refreshTokens.issue(userId, row.id, row.expiresAt);
    const result = await this.tokens(userId, row.id, refresh, Math.floor(this.now() / 1000), randomUUID());
    await this.publish("Authentication.Login", { user: userId, provider, session: row.id });
    return { ...result, setCookie: sessionCookie(this.cookieName, token, this.options.session.lifetime) };
  }

  /** Finds or creates the ident and logs its user in; linking and ACCOUNT_EXISTS are decided inside. */
  loginWithProvider(ctx: Context, identity: ProviderIdentity, options: LoginOptions): Promise<LoginResult> {
    return loginWithProvider(this, ctx, identity, options);
  }

  /** Rotation (CONTRACT.md): a reuse outside the interval revokes the family and its session. */
  async refresh(token: string): Promise<TokenResponse> {
    const rotation = await this.refreshTokens.rotate(token, this.options.refresh.reuseInterval * 1000);
    if (rotation.kind === "invalid") throw new AuthError(401, "INVALID_REFRESH_TOKEN", "The refresh token is not valid");
    if (rotation.kind === "reused") {
      await this.sessions.revoke(rotation.row.session);
      countEvent("RefreshTokenReuse");
      log.warn("refresh token reused: family revoked", { user: rotation.row.user, family: rotation.row.family });
      throw new AuthError(401, "REFRESH_TOKEN_REUSED", "The refresh token was already used: log in again");
    }
    const session = await this.sessions.get(rotation.row.session, rotation.row.user);
    if (!Sessions.logsIn(session)) throw new AuthError(401, "INVALID_REFRESH_TOKEN", "The refresh token is not valid");
    // The same claims for every use inside the interval, hence the same access token.
    return this.tokens(rotation.row.user, session.id, rotation.next, Math.floor(rotation.usedAt / 1000), sha256Hex(rotation.next).slice(0, 32));
  }

  /** Ends the session the request authenticated with; its access tokens, verified without a lookup, live until they expire. */
  async logout(identity: Identity): Promise<string> {
    if (identity.sessionId) {
      await this.sessions.end(identity.sessionId, this.options.accessToken.lifetime);
      await this.publish("Authentication.Logout", { user: identity.userId ?? null, session: identity.sessionId });
    }
    return clearedCookie(this.cookieName);
  }

  async publish(name: string, payload: Record<string, unknown>): Promise<void> {
    await this.app.events.publish({ name, payload }, (error) => log.error("event listener failed", { event: name, ...errorFields(error) }));
  }
}

/** The whole service (refresh, login, logout, idents); a record read's function builds AccessAuthentication only. */
export function authenticationOf(app: Application): AuthenticationService | undefined {
  return app.services().find((entry) => entry.service instanceof AuthenticationService)?.service as AuthenticationService | undefined;
}
