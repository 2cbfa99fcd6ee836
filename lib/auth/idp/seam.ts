import type { Application } from "../../core/application.ts";
import type { Context } from "../../core/context.ts";

/**
 * The one file through which the Idp provider reaches the authentication service (CONTRACT.md,
 * "The seam"). Types are restated structurally until the auth branch's `lib/auth/index.ts` lands;
 * then these become imports from there.
 */
export interface ProviderIdentity {
  provider: "email" | "idp";
  providerUid: string;
  email?: string;
  emailVerified: boolean;
  profile?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
}

export interface LoginResult {
  user: Record<string, unknown>;
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  setCookie: string;
}

export interface ProviderLogin {
  loginWithProvider(ctx: Context, identity: ProviderIdentity, options: { trustEmailVerification: boolean; linkTo?: string }): Promise<LoginResult>;
}

function isProviderLogin(service: unknown): service is ProviderLogin {
  return typeof (service as { loginWithProvider?: unknown }).loginWithProvider === "function";
}

/** The configured authentication service, or undefined when the application has none. */
export function providerLogin(app: Application): ProviderLogin | undefined {
  for (const { service } of app.services()) if (isProviderLogin(service)) return service;
  return undefined;
}

/** Publishes a domain event on the application's bus (the auth branch's `EventBus.publish`). */
export async function publish(app: Application, name: string, payload: Record<string, unknown>): Promise<void> {
  const bus = app.events as unknown as { publish?: (event: { name: string; payload: Record<string, unknown> }, onError?: (e: unknown) => void) => Promise<void> };
  await bus.publish?.({ name, payload });
}
