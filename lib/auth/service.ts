import { randomUUID } from "node:crypto";
import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import { NotFoundError } from "../core/errors.ts";
import { errorFields, log } from "../core/log.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { Service } from "../core/service.ts";
import { signAccessToken, verifyAccessToken, type AccessClaims, type AccessTokenSettings } from "./access-token.ts";
import { clearedCookie, readCookie, sessionCookie } from "./cookies.ts";
import { deriveKey, sha256Hex } from "./crypto.ts";
import { AuthError } from "./errors.ts";
import { loginWithProvider } from "./link.ts";
import { Idents } from "./idents.ts";
import { loadSigningKeys, signingKeySource, type SigningKeys } from "./keys.ts";
import { authenticationOptions, type AuthenticationOptions } from "./options.ts";
import { RefreshTokens } from "./refresh.ts";
import { Sessions, type SessionRow } from "./sessions.ts";
import { installV3Compatibility } from "./v3/install.ts";
import { IDENTS, identShape, REFRESH, refreshShape, SESSIONS, sessionShape } from "./tables.ts";
import type { AuthProvider, Identity, LoginOptions, LoginResult, ProviderIdentity, TokenResponse } from "./types.ts";

interface Parts {
  sessions: Sessions;
  refresh: RefreshTokens;
  idents: Idents;
}

export interface Credentials {
  authorization?: string | undefined;
  cookies: readonly string[];
}

/**
 * `Framework/Authentication`: sessions, access JWTs and rotating refresh tokens for every provider.
 * Providers (email/password, Idp) prove who someone is; this service turns that into credentials
 * and turns credentials back into a current user.
 */
export class AuthenticationService extends Service<AuthenticationOptions> {
  static override readonly type = "Framework/Authentication";
  static override readonly options = authenticationOptions;

  private parts: Parts | undefined;
  private keysPromise: Promise<SigningKeys> | undefined;
  /** Tests move time; everything here reads this clock. */
  now: () => number = Date.now;

  private get built(): Parts {
    if (!this.parts) {
      const secret = this.app.secret();
      this.parts = {
        sessions: new Sessions(this.app.tableRepository(SESSIONS, sessionShape), () => this.now()),
        refresh: new RefreshTokens(this.app.tableRepository(REFRESH, refreshShape), deriveKey(secret, "refresh-successor"), () => this.now()),
        idents: new Idents(this.app.tableRepository(IDENTS, identShape), deriveKey(secret, "ident-tokens"), () => new Date(this.now())),
      };
      // lib/auth/v3 plugs into the two hooks (CONTRACT.md); with compatibility off, v3 rows are ignored.
      // v3 password hashes are verified whatever it says (lib/auth/v3/hash-verifier.ts).
      if (this.options.compatibility.v3) installV3Compatibility(this.app, this.parts.idents, this.app.tableRepository(IDENTS, identShape), secret);
    }
    return this.parts;
  }

  get sessions(): Sessions {
    return this.built.sessions;
  }

  get refreshTokens(): RefreshTokens {
    return this.built.refresh;
  }

  /** Ident lookups (`idents.find(provider, providerUid)`); v3's legacy reader plugs in here. */
  get idents(): Idents {
    return this.built.idents;
  }

  /** The signing keys, loaded once per instance (a deploy parameter, or `.data/` offline). */
  keys(): Promise<SigningKeys> {
    this.keysPromise ??= loadSigningKeys(signingKeySource());
    return this.keysPromise;
  }

  tokenSettings(): AccessTokenSettings {
    return {
      issuer: this.options.issuer ?? this.app.name,
      audience: this.options.audience ?? this.app.name,
      lifetime: this.options.accessToken.lifetime,
    };
  }

  get cookieName(): string {
    return this.options.session.cookie;
  }

  identityModel(): ModelInfo {
    // By class: describing every model to find this one would cost a cold start each of them.
    const cls = this.app.modelClasses().find((c) => c.identity);
    const info = cls && this.app.model(cls.name);
    if (!info) throw new NotFoundError("The application declares no identity model (static identity = true)");
    return info;
  }

  providers(): AuthProvider[] {
    return this.app.services().flatMap((entry) => ("providerName" in entry.service ? [entry.service as unknown as AuthProvider] : []));
  }

  /** The verified claims of an access token whose session still accepts it; undefined otherwise. */
  async checkAccessToken(token: string): Promise<{ claims: AccessClaims; session: SessionRow } | undefined> {
    const claims = await verifyAccessToken(await this.keys(), this.tokenSettings(), token);
    if (!claims) return undefined;
    // The only I/O: a revoked session (recovery, password change, refresh reuse) ends its tokens.
    const session = await this.sessions.get(claims.sid, claims.sub);
    if (!Sessions.acceptsAccessTokens(session) || session.user !== claims.sub || session.secondFactor !== undefined) return undefined;
    return { claims, session };
  }

  /** `Authorization: Bearer` wins over the cookie; a bearer that fails is anonymous, never the cookie's user. */
  async identify(credentials: Credentials): Promise<Identity> {
    const authorization = credentials.authorization?.trim();
    if (authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      const checked = match ? await this.checkAccessToken(match[1] as string) : undefined;
      return checked ? { userId: checked.claims.sub, via: "bearer", sessionId: checked.claims.sid } : {};
    }
    const cookie = readCookie(credentials.cookies, this.cookieName);
    if (!cookie) return {};
    const session = await this.sessions.byCookie(cookie);
    if (!session) return {};
    if (session.secondFactor !== undefined) return { via: "cookie", sessionId: session.id, pendingSecondFactor: true };
    return { userId: session.user, via: "cookie", sessionId: session.id };
  }

  /** The user as the user sees themself. */
  async userView(userId: string): Promise<Record<string, unknown>> {
    const info = this.identityModel();
    return (await this.app.domain.get(new Context({ userId }), info, { [info.keyFields[0] as string]: userId })).data;
  }

  private async tokens(user: string, sid: string, refreshToken: string, iat: number, jti: string): Promise<TokenResponse> {
    const settings = this.tokenSettings();
    const access = await signAccessToken(await this.keys(), settings, { sub: user, sid, jti, iat });
    return {
      user: await this.userView(user),
      access_token: access,
      token_type: "Bearer",
      expires_in: Math.max(0, iat + settings.lifetime - Math.floor(this.now() / 1000)),
      refresh_token: refreshToken,
    };
  }

  /** A new session (cookie), refresh-token family and access token for a proven user. */
  async login(userId: string, provider: string): Promise<LoginResult> {
    const { token, row } = await this.sessions.create(userId, this.options.session.lifetime);
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
      log.warn("refresh token reused: family revoked", { user: rotation.row.user, family: rotation.row.family });
      throw new AuthError(401, "REFRESH_TOKEN_REUSED", "The refresh token was already used: log in again");
    }
    const session = await this.sessions.get(rotation.row.session, rotation.row.user);
    if (!Sessions.logsIn(session)) throw new AuthError(401, "INVALID_REFRESH_TOKEN", "The refresh token is not valid");
    // The same claims for every use inside the interval, hence the same access token.
    return this.tokens(rotation.row.user, session.id, rotation.next, Math.floor(rotation.usedAt / 1000), sha256Hex(rotation.next).slice(0, 32));
  }

  /** Ends the session the request authenticated with; its access tokens live until they expire (spec 5.4.9). */
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

export function authenticationOf(app: Application): AuthenticationService | undefined {
  return app.services().find((entry) => entry.service instanceof AuthenticationService)?.service as AuthenticationService | undefined;
}
