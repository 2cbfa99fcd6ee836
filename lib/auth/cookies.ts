import { isLocalOffline } from "../core/local-secret.ts";

/** The value of cookie `name` among `name=value` pairs (API Gateway v2 `cookies`, or a v1 header split). */
export function readCookie(cookies: readonly string[], name: string): string | undefined {
  for (const pair of cookies) {
    for (const part of pair.split(/;\s*/)) {
      const eq = part.indexOf("=");
      if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
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
