import { ValidationError } from "../../core/errors.ts";
import { isPlainObject } from "../../core/sanitize.ts";
import type { HttpRequest } from "../../http/request.ts";
import { json } from "../../http/response.ts";
import { loginRequired } from "../errors.ts";
import { redirect, stringFields, type AuthRoute } from "../routes/route.ts";
import type { LoginResult } from "../types.ts";
import type { EmailPasswordProvider } from "./provider.ts";

const noStore = { "cache-control": "no-store" };
/** The same body whether or not the address is known (spec 5.4.7). */
const ACCEPTED = { status: "ACCEPTED", message: "If the address can receive mail from us, a message is on its way" };

function loggedIn(result: LoginResult) {
  const { setCookie, ...body } = result;
  return { ...json(200, body, noStore), cookies: [setCookie] };
}

/** The API's own origin, for links in mails when no `publicUrl` is configured. */
function originOf(request: HttpRequest): string {
  const scheme = request.headers["x-forwarded-proto"] ?? (process.env.IS_OFFLINE === "true" ? "http" : "https");
  return `${scheme}://${request.headers.host ?? "localhost"}`;
}

/** The email provider's routes (spec 4.4), under its `url` and /auth/password. */
export function emailRoutes(provider: EmailPasswordProvider): AuthRoute[] {
  const url = provider.options.url;
  const id = (suffix: string) => `auth-${url.replace(/^\/auth\//, "").replace(/[^a-z0-9]+/g, "-")}-${suffix}`;
  return [
    {
      method: "POST", path: `${url}/login`, id: id("login"), operation: "Auth.Email.Login", summary: "Logs in with email and password",
      handle: async ({ http }) => {
        const { email, password } = stringFields(http, ["email", "password"]);
        return loggedIn(await provider.login(email, password));
      },
    },
    {
      method: "POST", path: `${url}/register`, id: id("register"), operation: "Auth.Email.Register", summary: "Registers (or, in `before` mode without token, mails a registration link)",
      handle: async ({ http }) => {
        const body = stringFields(http, ["email"], ["password", "user", "token"]);
        const errors = [
          ...(body.password !== undefined && typeof body.password !== "string" ? [{ path: "/password", message: "must be a string" }] : []),
          ...(body.token !== undefined && typeof body.token !== "string" ? [{ path: "/token", message: "must be a string" }] : []),
          ...(body.user !== undefined && !isPlainObject(body.user) ? [{ path: "/user", message: "must be an object" }] : []),
        ];
        if (errors.length > 0) throw new ValidationError(errors);
        const result = await provider.register(originOf(http), body as Parameters<EmailPasswordProvider["register"]>[1]);
        return result === "MAIL_SENT" ? json(202, ACCEPTED, noStore) : loggedIn(result);
      },
    },
    {
      method: "GET", path: `${url}/verify`, id: id("verify"), operation: "Auth.Email.Verify", summary: "The verification link: redirects to redirects.verified, .confirm (LOGIN_REQUIRED), .register or .failure",
      handle: async ({ http, identity }) => redirect(await provider.verifyLink(http.query.token, (await identity()).userId)),
    },
    {
      method: "POST", path: `${url}/verification`, id: id("verification"), operation: "Auth.Email.StartVerification", summary: "Mails a verification link",
      handle: async ({ http, identity }) => {
        const { email } = stringFields(http, ["email"]);
        await provider.startVerification(originOf(http), email, (await identity()).userId);
        return json(202, ACCEPTED, noStore);
      },
    },
    {
      method: "GET", path: `${url}/recover`, id: id("recover-link"), operation: "Auth.Password.RecoverLink", summary: "The recovery link: redirects to redirects.recover with the same token",
      handle: async ({ http }) => redirect(await provider.recoverLink(http.query.token)),
    },
    {
      method: "POST", path: "/auth/password/recovery", id: "auth-password-recovery", operation: "Auth.Password.StartRecovery", summary: "Mails a password recovery link",
      handle: async ({ http }) => {
        const { email } = stringFields(http, ["email"]);
        await provider.startRecovery(originOf(http), email);
        return json(202, ACCEPTED, noStore);
      },
    },
    {
      method: "POST", path: "/auth/password/recover", id: "auth-password-recover", operation: "Auth.Password.Recover", summary: "Sets a new password with the mailed token; ends every session",
      handle: async ({ http }) => {
        const { token, password } = stringFields(http, ["token", "password"]);
        return loggedIn(await provider.recover(token, password));
      },
    },
    {
      method: "POST", path: "/auth/password/change", id: "auth-password-change", operation: "Auth.Password.Change", summary: "Changes the password; ends the other sessions and earlier access tokens",
      handle: async ({ http, identity }) => {
        const { userId } = await identity();
        if (userId === undefined) throw loginRequired();
        const { password, new_password } = stringFields(http, ["password", "new_password"]);
        return loggedIn(await provider.changePassword(userId, password, new_password));
      },
    },
  ];
}
