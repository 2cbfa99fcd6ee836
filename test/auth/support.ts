import { randomUUID } from "node:crypto";
import { Application, type ApplicationDefinition } from "../../lib/core/application.ts";
import { AuthenticationService, type ProviderIdentity } from "../../lib/auth/index.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { definition } from "../fixtures/blog/index.ts";
import { Context } from "../../lib/core/context.ts";
import { inProcess } from "../support/parts.ts";

/** The blog on DynamoDB Local (the global setup's tables), with its auth services as configured here. */
export function authApp(services: ApplicationDefinition["services"] = {}): { app: Application; auth: AuthenticationService } {
  const app = new Application({ ...definition, services: { ...definition.services, ...services } }, inProcess).useStore(dynamoStore());
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  return { app, auth };
}

export const uniqueEmail = (): string => `user-${randomUUID().slice(0, 8)}@example.com`;

/** A user logged in through the provider seam, as the Idp provider would. */
export async function idpLogin(auth: AuthenticationService, overrides: Partial<ProviderIdentity> = {}) {
  const email = overrides.email ?? uniqueEmail();
  return auth.loginWithProvider(
    Context.anonymous(),
    { provider: "idp", providerUid: randomUUID(), issuer: "https://idp.test.example", email, emailVerified: true, profile: { name: "Ida" }, ...overrides },
    { trustEmailVerification: true },
  );
}
