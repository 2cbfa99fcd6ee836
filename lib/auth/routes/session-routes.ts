import { NotFoundError } from "../../core/errors.ts";
import { empty, json } from "../../http/response.ts";
import { AuthError, loginRequired } from "../errors.ts";
import { schemaRef, stringBody } from "./contract.ts";
import type { AuthRoute } from "./route.ts";
import { stringFields } from "./route.ts";

const noStore = { "cache-control": "no-store" };
const REFRESH = ["refresh_token"] as const;

/** Routes of the service itself, whatever the providers: keys, providers, me, refresh, logout, idents. */
export function sessionRoutes(): AuthRoute[] {
  return [
    {
      method: "GET",
      path: "/.well-known/jwks.json",
      id: "auth-jwks",
      operation: "Auth.Jwks",
      summary: "Public keys of the access tokens (JWKS)",
      contract: { caller: "none", store: false, errors: [], answers: { 200: { description: "The JSON Web Key Set", schema: schemaRef("Jwks") } } },
      handle: async ({ auth }) => json(200, (await auth.keys()).jwks, { "cache-control": "public, max-age=300" }),
    },
    {
      method: "GET",
      path: "/auth/providers",
      id: "auth-providers",
      operation: "Auth.Providers",
      summary: "The configured login providers",
      contract: { caller: "none", store: false, errors: [], answers: { 200: { description: "The login providers", schema: schemaRef("AuthProviders") } } },
      handle: async ({ auth }) => json(200, { providers: auth.providers().map((p) => p.describe()) }),
    },
    {
      method: "GET",
      path: "/auth/me",
      id: "auth-me",
      operation: "Auth.Me",
      summary: "The current user, or null when anonymous",
      contract: {
        caller: "optional",
        store: true,
        errors: [],
        answers: { 200: { description: "The current user as they see themselves, or null", schema: { anyOf: [schemaRef("CurrentUser"), { type: "null" }] } } },
      },
      handle: async ({ auth, identity }) => {
        const { userId } = await identity();
        return json(200, userId === undefined ? null : await auth.userView(userId).catch(() => null), noStore);
      },
    },
    {
      method: "POST",
      path: "/auth/refresh",
      id: "auth-refresh",
      operation: "Auth.Refresh",
      summary: "Rotates a refresh token: a new access and refresh token",
      contract: {
        caller: "none",
        store: true,
        body: stringBody(REFRESH),
        errors: [401],
        answers: { 200: { description: "The token response (no cookie)", schema: schemaRef("TokenResponse") } },
      },
      handle: async ({ auth, http }) => {
        const { refresh_token } = stringFields(http, REFRESH);
        return json(200, await auth.refresh(refresh_token), noStore);
      },
    },
    {
      method: "POST",
      path: "/auth/logout",
      id: "auth-logout",
      operation: "Auth.Logout",
      summary: "Ends the session (cookie and refresh tokens)",
      // Anonymous, it only clears the cookie; a cookie-authenticated call from a foreign Origin is a 403.
      contract: { caller: "optional", store: true, errors: [403], answers: { 204: { description: "Logged out: the cookie is cleared", cookie: true } } },
      handle: async ({ auth, identity }) => ({ ...empty(204, noStore), cookies: [await auth.logout(await identity())] }),
    },
    {
      method: "GET",
      path: "/auth/idents",
      id: "auth-idents",
      operation: "Auth.Idents",
      summary: "The current user's identities",
      contract: { caller: "user", store: true, errors: [], answers: { 200: { description: "The identities", schema: schemaRef("Idents") } } },
      handle: async ({ auth, identity }) => {
        const { userId } = await identity();
        if (userId === undefined) throw loginRequired();
        const idents = await auth.idents.listByUser(userId);
        return json(
          200,
          {
            idents: idents.map((i) => ({
              uuid: i.uuid,
              provider: i.provider,
              providerUid: i.providerUid,
              email: i.email ?? null,
              verifiedAt: i.verifiedAt ?? null,
              createdAt: i.createdAt,
            })),
          },
          noStore,
        );
      },
    },
    {
      method: "DELETE",
      path: "/auth/idents/{ident}",
      id: "auth-unlink",
      operation: "Auth.Unlink",
      summary: "Unlinks one of the current user's identities",
      contract: { caller: "user", store: true, errors: [403, 404, 409], answers: { 204: { description: "Unlinked" } } },
      handle: async ({ auth, identity, params }) => {
        const { userId } = await identity();
        if (userId === undefined) throw loginRequired();
        const idents = await auth.idents.listByUser(userId);
        const target = idents.find((i) => i.uuid === params.ident);
        // Another user's ident and a missing one look the same.
        if (!target) throw new NotFoundError("No such identity");
        if (idents.length <= 1) throw new AuthError(409, "LAST_IDENT", "This is the only way to log in to the account: link another first");
        await auth.idents.delete(target);
        // Whoever holds a session that ident opened (its provider account taken over, a device
        // signed in with it) is out with the ident, not 30 days later.
        await auth.sessions.revokeOpenedBy(userId, target.uuid);
        return empty(204);
      },
    },
  ];
}
