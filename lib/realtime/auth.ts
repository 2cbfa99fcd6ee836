import type { Application } from "../core/application.ts";
import { identityOf } from "../core/identity.ts";
import { TEST_USER_HEADER, testUserHookEnabled } from "../http/identity.ts";
import { originAllowed } from "../http/origin.ts";

/** A connection's user, and when a token proved it: the token's expiry and session. */
export interface ConnectionUser {
  userId: string;
  authExpiresAt?: number;
  sessionId?: string;
}

/** Verifies an access token and names its user; throws when the token is not acceptable. */
export type AccessTokenVerifier = (token: string) => Promise<string | ConnectionUser>;

export interface Handshake {
  /** Header names lower-cased. */
  headers: Record<string, string>;
  cookies: string[];
}

/**
 * Who a WebSocket connection acts for. The handshake (`$connect`) may carry a cookie session; the
 * graphql-ws `connection_init` payload may carry an access token, which wins. The cookie counts
 * only when the handshake's Origin is allowed (see `handshake`); the token needs no Origin. Until the
 * authentication service plugs in its cookie resolver and token verifier, the only identities
 * are the local test-user seam (`x-test-user` on the handshake, `{ testUser }` in the payload),
 * honoured exactly when the HTTP face honours `x-test-user`.
 */
export interface ConnectionAuthenticator {
  /** The user of the handshake, if any; throw to refuse the handshake (401). */
  handshake(request: Handshake): Promise<string | undefined>;
  /**
   * The user for the connection once `connection_init` arrives, given the handshake's user.
   * Resolve `false` to refuse the connection (graphql-ws closes it with 4403 Forbidden).
   */
  init(payload: Readonly<Record<string, unknown>> | undefined, handshakeUser: string | undefined): Promise<string | ConnectionUser | undefined | false>;
}

export interface AuthenticatorOptions {
  verifyAccessToken?: AccessTokenVerifier;
  /** The cookie-session resolver of the authentication service. */
  sessionUser?: (cookies: string[]) => Promise<string | undefined>;
  /** Origins besides the handshake's own whose pages may use the session cookie (`rest.corsOrigins`). */
  allowedOrigins?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

function tokenOf(payload: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const raw = payload?.accessToken ?? payload?.authorization ?? payload?.Authorization;
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  return raw.replace(/^Bearer\s+/i, "").trim();
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function connectionAuthenticator(options: AuthenticatorOptions = {}): ConnectionAuthenticator {
  const testUsers = () => testUserHookEnabled(options.env ?? process.env);
  return {
    async handshake(request) {
      if (testUsers()) {
        const user = nonEmpty(request.headers[TEST_USER_HEADER]);
        if (user) return user;
      }
      // A browser attaches the cookie to a handshake opened by any page, and no CORS guards what a
      // socket receives: as for an HTTP cookie write, the cookie counts only from an allowed Origin
      // (or, lacking one, Referer). Otherwise the connection starts anonymous rather than refused,
      // so a page elsewhere may still authenticate with an access token in `connection_init`.
      if (!options.sessionUser || !originAllowed(request, options.allowedOrigins ?? [])) return undefined;
      return options.sessionUser(request.cookies);
    },
    async init(payload, handshakeUser) {
      const token = tokenOf(payload);
      if (token !== undefined) {
        // A token nobody can check must not silently become an anonymous connection.
        if (!options.verifyAccessToken) return false;
        try {
          return await options.verifyAccessToken(token);
        } catch {
          return false;
        }
      }
      if (testUsers()) {
        const user = nonEmpty(payload?.testUser);
        if (user) return user;
      }
      return handshakeUser;
    },
  };
}

/**
 * The application's authentication service as the WebSocket face needs it: an access token in
 * `connection_init` (its session must still accept it), or the handshake's session cookie.
 */
export function applicationAuthenticator(app: Application, env?: NodeJS.ProcessEnv): ConnectionAuthenticator {
  const identity = identityOf(app);
  if (!identity) return connectionAuthenticator(env ? { env } : {});
  return connectionAuthenticator({
    ...(env ? { env } : {}),
    allowedOrigins: app.definition.rest?.corsOrigins ?? [],
    verifyAccessToken: async (token) => {
      const user = await identity.verifyAccessToken(token);
      if (!user) throw new Error("access token refused");
      return { userId: user.userId, authExpiresAt: user.expiresAt, sessionId: user.sessionId };
    },
    sessionUser: async (cookies) => (await identity.identify({ cookies })).userId,
  });
}

/** Which of these sessions no longer accept their access tokens (revoked or gone): fan-out stops them. */
export function applicationSessionCheck(app: Application): ((sessionIds: string[]) => Promise<Set<string>>) | undefined {
  const identity = identityOf(app);
  return identity ? (ids) => identity.revokedSessions(ids) : undefined;
}
