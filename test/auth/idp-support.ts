import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { readFile } from "node:fs/promises";
import { importJWK, SignJWT, generateKeyPair, type JWTPayload } from "jose";
import { CookieJar, locationOf } from "../support/cookie-jar.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";

/** Walks the local provider's pages: authorization request, login form, consent-free resume. Returns the callback URL. */
export async function signInAtProvider(jar: CookieJar, authorizationUrl: string, username: string, password = "demo"): Promise<string> {
  let url = authorizationUrl;
  let response = await jar.fetch(url);
  for (let hop = 0; hop < 10 && response.status >= 300 && response.status < 400; hop++) {
    url = locationOf(response, url);
    if (!url.startsWith(new URL(authorizationUrl).origin)) return url;
    response = await jar.fetch(url);
  }
  if (response.status !== 200) throw new Error(`login page answered ${response.status}: ${await response.text()}`);
  const page = await response.text();
  const action = /action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error("no login form");
  url = new URL(action.replace(/&amp;/g, "&"), url).href;
  response = await jar.fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }).toString(),
  });
  for (let hop = 0; hop < 10; hop++) {
    if (response.status < 300 || response.status >= 400) throw new Error(`provider answered ${response.status}: ${await response.text()}`);
    url = locationOf(response, url);
    if (!url.startsWith(new URL(authorizationUrl).origin)) return url;
    response = await jar.fetch(url);
  }
  throw new Error("too many redirects at the provider");
}

/**
 * Follows redirects across the API and the provider until a page answers, signing in as `login`
 * when the provider's page comes; returns where it landed.
 */
export async function followSignIn(jar: CookieJar, url: string, issuer: string, login?: string): Promise<{ url: string; response: Response }> {
  let current = url;
  for (let hop = 0; hop < 15; hop++) {
    if (login && current.startsWith(issuer)) {
      current = await signInAtProvider(jar, current, login);
      login = undefined;
      continue;
    }
    const response = await jar.fetch(current);
    if (response.status < 300 || response.status >= 400) return { url: current, response };
    current = locationOf(response, current);
  }
  throw new Error("too many redirects");
}

export interface Answer {
  status: number;
  location: string | undefined;
  cookies: string[];
  body: unknown;
}

type Handler = (event: ReturnType<typeof httpEvent>, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

/** Calls the Idp Lambda in-process as API Gateway (payload 2.0) would, with the browser's cookies for `host`. */
export async function callIdp(
  handler: Handler,
  method: string,
  url: string,
  options: { jar?: CookieJar; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Answer> {
  const parsed = new URL(url);
  const event = httpEvent(method, `${parsed.pathname}${parsed.search ? `?${parsed.search.slice(1)}` : ""}`, {
    body: options.body,
    rawBody: options.rawBody,
    headers: { host: parsed.host, "x-forwarded-proto": parsed.protocol.slice(0, -1), ...options.headers },
  });
  const cookie = options.jar?.header(url);
  if (cookie) event.cookies = cookie.split("; ");
  const result = (await handler(event, lambdaContext())) as APIGatewayProxyStructuredResultV2;
  const cookies = result.cookies ?? [];
  options.jar?.store(url, cookies);
  const headers = (result.headers ?? {}) as Record<string, string>;
  return { status: result.statusCode ?? 0, location: headers.location, cookies, body: result.body ? (JSON.parse(result.body) as unknown) : undefined };
}

/** Signs an ID token with the provider's own key (read from its key file) or with a stranger's. */
export async function forgeIdToken(claims: JWTPayload, signer: { keyFile: string } | "stranger", options: { alg?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload = { iat: now, exp: now + 600, ...claims };
  if (signer === "stranger") {
    const { privateKey } = await generateKeyPair("RS256");
    return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "stranger" }).sign(privateKey);
  }
  const jwk = JSON.parse(await readFile(signer.keyFile, "utf8")) as Record<string, unknown> & { kid: string };
  const key = await importJWK(jwk, "RS256");
  return new SignJWT(payload).setProtectedHeader({ alg: options.alg ?? "RS256", kid: jwk.kid }).sign(key);
}

/** An unsigned token (`alg: none`), which must never verify. */
export function unsignedIdToken(claims: JWTPayload): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${enc({ alg: "none", typ: "JWT" })}.${enc(claims)}.`;
}
