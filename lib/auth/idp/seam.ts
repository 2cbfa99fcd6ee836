import type { Application } from "../../core/application.ts";
import { errorFields, log } from "../../core/log.ts";
import { authenticationOf, type AuthenticationService, type LoginResult, type ProviderIdentity } from "../index.ts";

/**
 * The one file through which the Idp provider reaches the authentication service (CONTRACT.md,
 * "The seam"): `loginWithProvider` finds or creates the ident, applies the linking policy, stores
 * the tokens encrypted, emits Authentication.Login and starts the session.
 */
export type { LoginResult, ProviderIdentity };

export function providerLogin(app: Application): AuthenticationService | undefined {
  return authenticationOf(app);
}

/** Publishes a domain event on the application's bus; a failing listener never fails the login. */
export async function publish(app: Application, name: string, payload: Record<string, unknown>): Promise<void> {
  await app.events.publish({ name, payload }, (error) => log.error("event listener failed", { event: name, ...errorFields(error) }));
}
