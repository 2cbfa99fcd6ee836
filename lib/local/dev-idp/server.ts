import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import type { default as Provider, Configuration, KoaContextWithOIDC } from "oidc-provider";
import { memoryAdapter } from "./memory-adapter.ts";
import { loadProvider } from "./provider-module.ts";
import { demoUserBySub, DEMO_USERS, DEMO_PASSWORD, findDemoUser, type DemoUser } from "./users.ts";
import { loadSigningKey } from "./keys.ts";
import { loginPage } from "./page.ts";

/**
 * The development OpenID provider `npm start` runs on loopback (oidc-provider): a real issuer with
 * discovery, JWKS, PKCE and signed ID tokens, a plain login form and the demo users, so the Idp
 * browser flow can be tried without an account anywhere. Never deployed.
 */
export interface DevIdpOptions {
  port: number;
  host?: string;
  /** The client the sample application uses in the local stage. */
  client: { id: string; secret: string; redirectUris: string[] };
  /** Where the signing key is kept between starts (tests forge tokens with it). */
  keyFile: string;
}

export interface DevIdp {
  issuer: string;
  close(): Promise<void>;
}

function claimsOf(user: DemoUser): { sub: string; [claim: string]: unknown } {
  return { sub: user.sub, email: user.email, email_verified: user.email_verified, name: user.name, ...(user.hd ? { hd: user.hd } : {}) };
}

function configuration(options: DevIdpOptions, jwk: Record<string, unknown>): Configuration {
  return {
    clients: [
      {
        client_id: options.client.id,
        client_secret: options.client.secret,
        redirect_uris: options.client.redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    adapter: memoryAdapter(),
    jwks: { keys: [jwk] } as Configuration["jwks"],
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub", "hd"], email: ["email", "email_verified"], profile: ["name"] },
    // Like Google: the scope's claims are in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // First-party demo: no consent screen; the grant covers what the client asked for.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const clientId = ctx.oidc.client?.clientId;
      const accountId = ctx.oidc.session?.accountId;
      if (!clientId || !accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope(String(ctx.oidc.params?.scope ?? "openid"));
      await grant.save();
      return grant;
    },
    findAccount: (_ctx, sub) => {
      const user = demoUserBySub(sub);
      return user ? { accountId: sub, claims: () => claimsOf(user) } : undefined;
    },
    ttl: { AccessToken: 3600, AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
    renderError: (ctx, out) => {
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = `${out.error}: ${out.error_description ?? ""}\n`;
    },
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16_384) throw new Error("form too large");
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

// No `form-action`: Chrome applies it to the redirects after the post too, and the login ends in a
// redirect to the application's callback on another origin.
function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(body);
}

async function interaction(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string, submit: boolean): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error("interaction mismatch");
  if (!submit) {
    html(res, 200, loginPage({ action: `/interaction/${uid}/login`, users: DEMO_USERS, password: DEMO_PASSWORD }));
    return;
  }
  const form = await readForm(req);
  const user = findDemoUser(form.get("username") ?? "");
  if (!user || form.get("password") !== user.password) {
    html(res, 401, loginPage({ action: `/interaction/${uid}/login`, users: DEMO_USERS, password: DEMO_PASSWORD, error: "Unknown user or wrong password." }));
    return;
  }
  await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const host = options.host ?? "127.0.0.1";
  const jwk = await loadSigningKey(options.keyFile);
  // Set once listening; requests before that get 503.
  const live: { provider?: Provider; oidc?: ReturnType<Provider["callback"]> } = {};
  const server: Server = createServer((req, res) => {
    const { provider, oidc } = live;
    if (!provider || !oidc) {
      res.writeHead(503).end();
      return;
    }
    const match = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec((req.url ?? "").split("?")[0] ?? "");
    if (!match) {
      oidc(req, res);
      return;
    }
    const submit = match[2] !== undefined;
    if (submit !== (req.method === "POST")) {
      res.writeHead(405).end();
      return;
    }
    interaction(provider, req, res, match[1] ?? "", submit).catch(() => {
      if (!res.headersSent) html(res, 400, "<p>This sign-in attempt has expired or is invalid. Start again from the application.</p>");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  // Port 0 (tests) picks a free port: the issuer is known only once listening.
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const ProviderClass = await loadProvider();
  live.provider = new ProviderClass(issuer, configuration(options, jwk));
  live.oidc = live.provider.callback();
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
