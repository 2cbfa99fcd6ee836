import { isLocalOffline } from "../core/local-secret.ts";
import type { HttpRequest } from "./request.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

function originOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const origin = new URL(value).origin;
    // Opaque origins (`null`, `file:`, `data:`) equal nothing, not even each other.
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * The CSRF check for cookie-authenticated writes: the request's Origin (or, lacking one, its
 * Referer's origin) must be the API's own origin or one the application allows (`rest.corsOrigins`).
 * A request with neither header is refused: deny by default.
 */
export function originAllowed(request: Pick<HttpRequest, "headers">, allowed: readonly string[]): boolean {
  const declared = request.headers.origin;
  // An Origin the browser sent is the answer, whatever the Referer says: `null` (a sandboxed frame,
  // a cross-site redirect, a file: page) is an opaque origin, foreign to every site, and a Referer
  // next to it may still name our own page. Only a request without Origin falls back to Referer.
  const origin = declared ? originOf(declared) : originOf(request.headers.referer);
  if (!origin) return false;
  const host = request.headers.host;
  if (host) {
    // Plain http only under `serverless offline`; API Gateway serves https.
    if (origin === `https://${host}` || (isLocalOffline() && origin === `http://${host}`)) return true;
  }
  return allowed.some((a) => originOf(a) === origin);
}
