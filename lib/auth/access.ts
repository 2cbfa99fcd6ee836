import { Context } from "../core/context.ts";
import { NotFoundError } from "../core/errors.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Credentials } from "../core/identity.ts";
import { isLambdaRuntime } from "../core/secrets/values.ts";
import { Service } from "../core/service.ts";
import { verifyAccessToken, type AccessClaims, type AccessTokenSettings } from "./access-token-verify.ts";
import { readCookie } from "./cookies.ts";
import { checkAccessKeys, loadAccessKeys, type AccessKeys } from "./keys.ts";
import { authenticationOptions, type AuthenticationOptions } from "./options.ts";
import { Sessions, type SessionRow } from "./sessions.ts";
import { SESSIONS, sessionShape } from "./tables.ts";
import { identityPort } from "./identity-port.ts";
import type { Identity } from "./types.ts";
import { mapV3Users } from "./v3/compatibility.ts";

export type { Credentials };

/**
 * `Framework/Authentication` as a function that only needs to know who is asking sees it (a record
 * read, functions/rest-read.ts): access tokens verified, session cookies and sessions read, the
 * current user's view. AuthenticationService (./service.ts) extends it with what issues and ends
 * credentials (login, refresh rotation, logout, idents); a function that never does builds this
 * one, so refresh tokens, idents, ident token encryption and access token signing stay out of its
 * bundle. Both answer the same for the same credentials.
 */
export class AccessAuthentication extends Service<AuthenticationOptions> {
  static override readonly type = "Framework/Authentication";
  static override readonly options = authenticationOptions;

  private keysPromise: Promise<AccessKeys> | undefined;
  private sessionRows: Sessions | undefined;
  /** Tests move time; everything here reads this clock. */
  now: () => number = Date.now;

  get sessions(): Sessions {
    if (!this.sessionRows) {
      this.sessionRows = new Sessions(this.app.tableRepository(SESSIONS, sessionShape), () => this.now());
    }
    return this.sessionRows;
  }

  /**
   * A Lambda runtime (AWS sets AWS_EXECUTION_ENV; serverless offline does not) refuses to start
   * without its keys, or with keys of the wrong shape, rather than start and fail its callers: it
   * checks them with the secrets its application was composed with. Parsing is all the start pays;
   * the keys are imported at their first use.
   * v3 user rows read mapped (`__password` as the password behavior) from the first request on,
   * anonymous reads included, not only once a credential has been checked. The faces ask who is
   * calling through lib/core's identity port, which this service answers from now on.
   */
  override attached(): void {
    if (isLambdaRuntime()) checkAccessKeys(this.app.secrets);
    if (this.options.compatibility.v3) mapV3Users(this.app);
    this.app.useIdentity(identityPort(this));
  }

  /**
   * The access-token keys, loaded once per instance: the private set where this function has it
   * (the secret store, the environment, or `.data/` offline), else the public set.
   */
  keys(): Promise<AccessKeys> {
    this.keysPromise ??= loadAccessKeys(this.app.secrets);
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
}
