import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPair, SignJWT } from "jose";

/**
 * Fault injection for the Idp provider: an OpenID provider on loopback whose discovery document,
 * authorization endpoint and token endpoint answer as a real one would, and whose JWKS endpoint
 * drops every connection. A service pointed at it can start a browser flow and exchange a code,
 * but can never verify the ID token it receives: the login must fail cleanly.
 */
export interface JwksDownIdp {
  issuer: string;
  /** How many times the service tried to fetch the keys. */
  jwksAttempts: () => number;
  close: () => Promise<void>;
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  for await (const chunk of request) text += (chunk as Buffer).toString("utf8");
  return new URLSearchParams(text);
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  response.end(JSON.stringify(body));
}

export async function startJwksDownIdp(options: { clientId: string; claims: Record<string, unknown> }): Promise<JwksDownIdp> {
  const { privateKey } = await generateKeyPair("RS256");
  const nonces = new Map<string, string>();
  let attempts = 0;
  let issuer = "";
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", issuer);
    if (url.pathname === "/.well-known/openid-configuration") {
      json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      });
      return;
    }
    if (url.pathname === "/authorize") {
      // Signs the user in at once: a code bound to the flow's nonce, back to the redirect URI.
      const code = randomBytes(16).toString("base64url");
      nonces.set(code, url.searchParams.get("nonce") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      response.writeHead(302, { location: back.href });
      response.end();
      return;
    }
    if (url.pathname === "/token" && request.method === "POST") {
      void formOf(request).then(async (form) => {
        const nonce = nonces.get(form.get("code") ?? "");
        if (nonce === undefined) return json(response, 400, { error: "invalid_grant" });
        nonces.delete(form.get("code") ?? "");
        const idToken = await new SignJWT({ ...options.claims, nonce })
          .setProtectedHeader({ alg: "RS256", kid: "jwks-down" })
          .setIssuer(issuer)
          .setAudience(options.clientId)
          .setIssuedAt()
          .setExpirationTime("10m")
          .sign(privateKey);
        json(response, 200, { access_token: randomBytes(16).toString("base64url"), token_type: "Bearer", expires_in: 300, id_token: idToken });
      });
      return;
    }
    if (url.pathname === "/jwks") {
      attempts++;
      request.socket.destroy();
      return;
    }
    json(response, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksAttempts: () => attempts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
