import type { Application } from "./application.ts";

/** What a caller presents: the Authorization header and the request's cookies. */
export interface Credentials {
  authorization?: string | undefined;
  cookies: readonly string[];
}

/** Who a request acts for, and how it proved it. */
export interface Identity {
  userId?: string;
  via?: "bearer" | "cookie" | "test";
  /** The session row id (the access token's `sid`, or the cookie's row). */
  sessionId?: string;
  /** A cookie session still waiting for its second factor: no current user. */
  pendingSecondFactor?: boolean;
}

/** An access token's user, when it proves one: until when, and under which session. */
export interface TokenUser {
  userId: string;
  /** The token's expiry, epoch seconds. */
  expiresAt: number;
  sessionId: string;
}

/**
 * The identity port: what a face asks, "who is calling, from these credentials?". Implemented by
 * the authentication service (lib/auth/identity-port.ts), held by its application from the moment
 * the service attaches (`app.useIdentity`), asked by the HTTP faces (lib/http/identity.ts) and the WebSocket face
 * (lib/realtime/auth.ts), so no face depends on how identities are proved.
 */
export interface IdentityPort {
  /** `Authorization: Bearer` wins over the session cookie; nothing verifiable is anonymous (`{}`). */
  identify(credentials: Credentials): Promise<Identity>;
  /** A bare access token (a WebSocket `connection_init`) whose session still accepts it. */
  verifyAccessToken(token: string): Promise<TokenUser | undefined>;
  /** Which of these sessions no longer accept their access tokens (revoked or gone). */
  revokedSessions(sessionIds: string[]): Promise<Set<string>>;
}

/** The application's identity port; undefined when it has no authentication service (everyone is anonymous). */
export function identityOf(app: Application): IdentityPort | undefined {
  return app.identity();
}
