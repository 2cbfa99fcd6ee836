import { isLocalOffline } from "../core/local-secret.ts";

/**
 * The value of cookie `name` among `name=value` pairs (API Gateway v2 `cookies`, or a v1 header
 * split). A value that is not valid percent-encoding is no cookie of ours (ours are base64url):
 * undefined, not the URIError that answered 500 to any request carrying it.
 */
export function readCookie(cookies: readonly string[], name: string): string | undefined {
  for (const pair of cookies) {
    for (const part of pair.split(/;\s*/)) {
      const eq = part.indexOf("=");
      if (eq > 0 && part.slice(0, eq).trim() === name) {
        try {
          return decodeURIComponent(part.slice(eq + 1).trim());
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

/** HttpOnly, SameSite=Lax, Path=/, Secure everywhere but `serverless offline` (plain http on loopback). */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, env: NodeJS.ProcessEnv = process.env): string {
  const secure = isLocalOffline(env) ? "" : "; Secure";
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function clearedCookie(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return sessionCookie(name, "", 0, env);
}
