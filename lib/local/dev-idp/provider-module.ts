import type ProviderClass from "oidc-provider";

/**
 * oidc-provider, loaded when the development provider starts (not when `npm start --help` merely
 * imports this folder).
 */
export async function loadProvider(): Promise<typeof ProviderClass> {
  return (await import("oidc-provider")).default;
}
