import { ValidationError } from "../../core/errors.ts";
import { isPlainObject } from "../../core/sanitize.ts";
import { json } from "../../http/response.ts";
import { loginRequired } from "../errors.ts";
import { schemaRef, stringBody, type AuthAnswer } from "../routes/contract.ts";
import { redirect, stringFields, type AuthRoute } from "../routes/route.ts";
import type { LoginResult } from "../types.ts";
import type { EmailPasswordProvider } from "./provider.ts";

const noStore = { "cache-control": "no-store" };
/** The same body whether or not the address is known: the answer never tells who has an account. */
const ACCEPTED = { status: "ACCEPTED", message: "If the address can receive mail from us, a message is on its way" };

const LOGIN = ["email", "password"] as const;
const EMAIL = ["email"] as const;
const REGISTER_OPTIONAL = { password: { type: "string" }, user: schemaRef("RegistrationUser"), token: { type: "string" } };
const RECOVER = ["token", "password"] as const;
const CHANGE = ["password", "new_password"] as const;

const TOKENS: AuthAnswer = { description: "Logged in: the token response, and the session cookie", schema: schemaRef("TokenResponse"), cookie: true };
const ACCEPTED_ANSWER: AuthAnswer = { description: "The same answer whatever the address", schema: schemaRef("Accepted") };
const REDIRECT = (description: string): AuthAnswer => ({ description, redirect: true });

function loggedIn(result: LoginResult) {
  const { setCookie, ...body } = result;
  return { ...json(200, body, noStore), cookies: [setCookie] };
}

/** The email provider's routes, under its `url` and /auth/password. */
export function emailRoutes(provider: EmailPasswordProvider): AuthRoute[] {
  const url = provider.options.url;
  const id = (suffix: string) => `auth-${url.replace(/^\/auth\//, "").replace(/[^a-z0-9]+/g, "-")}-${suffix}`;
  return [
    {
      method: "POST",
      path: `${url}/login`,
      id: id("login"),
      operation: "Auth.Email.Login",
      summary: "Logs in with email and password",
      // 403 EMAIL_NOT_VERIFIED exists in `before` mode only (an unverified ident: v3 data); 429 is the login delay and lockout.
      contract: {
        caller: "none",
        store: true,
        body: stringBody(LOGIN),
        errors: [401, 429, ...(provider.options.verification === "before" ? [403] : [])],
        answers: { 200: TOKENS },
      },
      handle: async ({ http }) => {
        const { email, password } = stringFields(http, LOGIN);
        return loggedIn(await provider.login(email, password));
      },
    },
    {
      method: "POST",
      path: `${url}/register`,
      id: id("register"),
      operation: "Auth.Email.Register",
      summary: "Registers (or, in `before` mode without token, mails a registration link)",
      contract: {
        caller: "none",
        store: true,
        body: stringBody(EMAIL, REGISTER_OPTIONAL),
        // 400 also for a registration token that is not valid (INVALID_TOKEN); 403 only where registration is restricted.
        errors: [409, ...(provider.options.registration === "closed" || provider.options.allowedEmailDomains ? [403] : [])],
        answers: provider.options.verification === "before" ? { 200: TOKENS, 202: ACCEPTED_ANSWER } : { 200: TOKENS },
      },
      handle: async ({ http }) => {
        const body = stringFields(http, EMAIL, Object.keys(REGISTER_OPTIONAL));
        const errors = [
          ...(body.password !== undefined && typeof body.password !== "string" ? [{ path: "/password", message: "must be a string" }] : []),
          ...(body.token !== undefined && typeof body.token !== "string" ? [{ path: "/token", message: "must be a string" }] : []),
          ...(body.user !== undefined && !isPlainObject(body.user) ? [{ path: "/user", message: "must be an object" }] : []),
        ];
        if (errors.length > 0) throw new ValidationError(errors);
        const result = await provider.register(body as Parameters<EmailPasswordProvider["register"]>[0], http.sourceIp);
        return result === "MAIL_SENT" ? json(202, ACCEPTED, noStore) : loggedIn(result);
      },
    },
    {
      method: "GET",
      path: `${url}/verify`,
      id: id("verify"),
      operation: "Auth.Email.Verify",
      summary: "The verification link: redirects to redirects.verified, .confirm (LOGIN_REQUIRED), .register or .failure",
      contract: {
        caller: "optional",
        store: true,
        query: { token: "The mailed token" },
        errors: [],
        answers: { 302: REDIRECT("To the page for the outcome (`reason` on failure)") },
      },
      handle: async ({ http, identity }) => redirect(await provider.verifyLink(http.query.token, (await identity()).userId)),
    },
    {
      method: "POST",
      path: `${url}/verification`,
      id: id("verification"),
      operation: "Auth.Email.StartVerification",
      summary: "Mails a verification link",
      contract: { caller: "optional", store: true, body: stringBody(EMAIL), errors: [403], answers: { 202: ACCEPTED_ANSWER } },
      handle: async ({ http, identity }) => {
        const { email } = stringFields(http, EMAIL);
        await provider.startVerification(email, (await identity()).userId, http.sourceIp);
        return json(202, ACCEPTED, noStore);
      },
    },
    {
      method: "GET",
      path: `${url}/recover`,
      id: id("recover-link"),
      operation: "Auth.Password.RecoverLink",
      summary: "The recovery link: redirects to redirects.recover with the same token",
      contract: {
        caller: "none",
        store: false,
        query: { token: "The mailed token" },
        errors: [],
        answers: { 302: REDIRECT("To redirects.recover with the token, or redirects.failure without one") },
      },
      handle: async ({ http }) => redirect(await provider.recoverLink(http.query.token)),
    },
    {
      method: "POST",
      path: "/auth/password/recovery",
      id: "auth-password-recovery",
      operation: "Auth.Password.StartRecovery",
      summary: "Mails a password recovery link",
      contract: { caller: "none", store: true, body: stringBody(EMAIL), errors: [], answers: { 202: ACCEPTED_ANSWER } },
      handle: async ({ http }) => {
        const { email } = stringFields(http, EMAIL);
        await provider.startRecovery(email, http.sourceIp);
        return json(202, ACCEPTED, noStore);
      },
    },
    {
      method: "POST",
      path: "/auth/password/recover",
      id: "auth-password-recover",
      operation: "Auth.Password.Recover",
      summary: "Sets a new password with the mailed token; ends every session",
      contract: { caller: "none", store: true, body: stringBody(RECOVER), errors: [], answers: { 200: TOKENS } },
      handle: async ({ http }) => {
        const { token, password } = stringFields(http, RECOVER);
        return loggedIn(await provider.recover(token, password));
      },
    },
    {
      method: "POST",
      path: "/auth/password/change",
      id: "auth-password-change",
      operation: "Auth.Password.Change",
      summary: "Changes the password; ends the other sessions and earlier access tokens",
      contract: { caller: "user", store: true, body: stringBody(CHANGE), errors: [403], answers: { 200: TOKENS } },
      handle: async ({ http, identity }) => {
        const { userId, sessionId } = await identity();
        // A session is where wrong current passwords are counted: a caller without one cannot change it.
        if (userId === undefined || sessionId === undefined) throw loginRequired();
        const { password, new_password } = stringFields(http, CHANGE);
        return loggedIn(await provider.changePassword({ userId, sessionId }, password, new_password));
      },
    },
  ];
}
