import type { IdentityPort } from "../core/identity.ts";
import type { AccessAuthentication } from "./access.ts";

/** The authentication service behind lib/core's identity port (AccessAuthentication installs it when attached). */
export function identityPort(auth: AccessAuthentication): IdentityPort {
  return {
    identify: (credentials) => auth.identify(credentials),
    verifyAccessToken: async (token) => {
      const checked = await auth.checkAccessToken(token);
      return checked ? { userId: checked.claims.sub, expiresAt: checked.claims.exp, sessionId: checked.claims.sid } : undefined;
    },
    revokedSessions: (sessionIds) => auth.sessions.revokedAmong(sessionIds),
  };
}
