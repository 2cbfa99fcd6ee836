import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { randomUUID } from "node:crypto";
import { definition } from "../fixtures/blog/index.ts";
import { AuthenticationService } from "../../lib/auth/index.ts";
import { issuerlessIdpKey } from "../../lib/auth/idp-keys.ts";
import { IdpProvider } from "../../lib/auth/idp/provider.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { createUser, profileFields } from "../../lib/auth/users.ts";
import { Application } from "../../lib/core/application.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { documentClient } from "../../lib/store/dynamodb-client.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { TEST_CLIENT_SECRET, type DevIdpFixture } from "./dev-idp-fixture.ts";
import { freshAuthPrefix } from "./fresh-auth-tables.ts";
import { callIdp, forgeIdToken } from "./idp-support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * Several local OpenID providers (each its own issuer and signing key) behind one application,
 * token login through the real route, on tables of its own per setup.
 */
export const APP = "https://app.test";

export type Issuer = DevIdpFixture;

const idpService = (issuer: Issuer, url: string) => ({
  type: "Framework/IdpProvider",
  url,
  issuer: issuer.idp.issuer,
  clientId: "test-client",
  redirects: { success: `${APP}/welcome`, failure: `${APP}/failed` },
});

export async function setup(issuers: Issuer[]) {
  const prefix = await freshAuthPrefix();
  const services: Record<string, { type: string } & Record<string, unknown>> = { ...definition.services };
  delete services.idp;
  issuers.forEach((issuer, i) => {
    services[i === 0 ? "idp" : `idp${i}`] = idpService(issuer, i === 0 ? "/auth/idp" : `/auth/idp${i}`);
  });
  const app = new Application({ ...definition, services }, inProcess).useStore(dynamoStore(prefix));
  for (const entry of app.services())
    if (entry.service instanceof IdpProvider) entry.service.useRuntime({ env: { ...process.env, IDP_CLIENT_SECRET: TEST_CLIENT_SECRET } });
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  return { app, auth, prefix, handler: httpHandler("auth", authDispatcher(app)) };
}

export type Setup = Awaited<ReturnType<typeof setup>>;

/** A token login at `issuer` as `sub` (the token route takes any configured issuer's ID token). */
export async function login(s: Setup, issuer: Issuer, sub: string, tokens: Record<string, unknown> = {}, claims: Record<string, unknown> = {}) {
  const token = await forgeIdToken(
    { iss: issuer.idp.issuer, aud: "test-client", sub, email: `${randomUUID().slice(0, 8)}@example.com`, email_verified: true, ...claims },
    { keyFile: issuer.keyFile },
  );
  return callIdp(s.handler, "POST", `${APP}/auth/idp/token`, {
    rawBody: JSON.stringify({ tokens: { id_token: token, ...tokens } }),
    headers: { "content-type": "application/json" },
  });
}

export const userOf = (answer: { body: unknown }) => (answer.body as { user: { uuid: string } }).user.uuid;

/** An ident as it was written before idents carried their issuer. */
export async function issuerlessRow(s: Setup, sub: string, form: "v4" | "v3"): Promise<string> {
  const info = s.auth.identityModel();
  const user = await createUser(s.app, info, profileFields(info, { name: "Early" }, `early-${randomUUID().slice(0, 8)}@example.com`));
  const now = new Date().toISOString();
  const item =
    form === "v4"
      ? { uuid: issuerlessIdpKey(sub), provider: "idp", providerUid: sub, user, createdAt: now, updatedAt: now, __version: 1 }
      : { uuid: `${sub}_idp`, _type: "idp", _user: user, __tokens: { access_token: "v3-at" } };
  await documentClient().send(new PutCommand({ TableName: `${s.prefix}auth-idents`, Item: item }));
  return user;
}
