import { log, type Application } from "../lib/index.ts";

/**
 * The sample's sign-in audit trail: one log line per login, whichever provider, and one when an
 * OpenID provider hands over its tokens (which kinds, never their values). Listeners run after the
 * login has succeeded; one that fails is logged and never fails the login.
 */
/** The user's uuid, whether the event carries the id or the user's view. */
function userOf(value: unknown): unknown {
  return typeof value === "object" && value !== null && "uuid" in value ? (value as { uuid: unknown }).uuid : value;
}

export function auditSignIns(app: Application): void {
  app.events.onEvent("Authentication.Login", ({ payload }) => {
    log.info("audit: signed in", { user: userOf(payload.user), provider: payload.provider });
  });
  app.events.onEvent("IdpAuth.Tokens", ({ payload }) => {
    const tokens = (payload.tokens ?? {}) as Record<string, unknown>;
    log.info("audit: provider tokens received", { user: userOf(payload.user), provider: payload.provider, kinds: Object.keys(tokens).sort().join(",") });
  });
}
