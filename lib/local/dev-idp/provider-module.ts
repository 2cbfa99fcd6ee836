import type ProviderClass from "oidc-provider";

const RUNTIME_WARNING = "oidc-provider WARNING: Unsupported runtime";

/**
 * oidc-provider, loaded when the development provider starts (not when `npm start --help` merely
 * imports this folder). On Node 20 it warns at import that it wants Node 22 LTS, the runtime
 * Lambda runs: the development provider works on 20 (CI runs it there), so that one line is not
 * printed; the README's prerequisites say so once. Every other warning passes through.
 */
export async function loadProvider(): Promise<typeof ProviderClass> {
  const warn = console.warn;
  console.warn = (...args: unknown[]): void => {
    if (typeof args[0] === "string" && args[0].includes(RUNTIME_WARNING)) return;
    warn(...args);
  };
  try {
    return (await import("oidc-provider")).default;
  } finally {
    console.warn = warn;
  }
}
