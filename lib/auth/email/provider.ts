import { randomBytes, randomUUID } from "node:crypto";
import { PreconditionFailedError, ValidationError } from "../../core/errors.ts";
import { versionOf } from "../../core/records.ts";
import { countEvent } from "../../core/metrics.ts";
import { VERSION_FIELD } from "../../core/schema.ts";
import { LEGACY_PASSWORDS, type HashVerifier } from "../../core/behaviors/password.ts";
import { deriveKey, sha256Hex } from "../crypto.ts";
import { AuthError, invalidCredentials, loginRequired } from "../errors.ts";
import { identKey, type Ident } from "../idents.ts";
import { MailerService } from "../mail/mailer.ts";
import { accountExistsMail, nothingToDoMail, recoveryMail, registrationMail, verificationMail } from "../mail/templates.ts";
import { authenticationOf, type AuthenticationService } from "../service.ts";
import { Sessions } from "../sessions.ts";
import { SESSIONS, sessionShape } from "../tables.ts";
import type { LoginResult } from "../types.ts";
import { checkNewUser, createUser } from "../users.ts";
import { EmailPasswordProviderDescription } from "./description.ts";
import type { EmailProviderOptions } from "./options.ts";
import { canonicalEmail } from "./address.ts";
import { linkBase, mailLink } from "./links.ts";
import { checkPassword, hashPassword, passwordOf } from "./passwords.ts";
import { countAttempt } from "./attempt-gate.ts";
import { MailBudget } from "./budget.ts";
import { sendWithinLimits, type MailBuilder } from "./limited-send.ts";
import { MailThrottle, type MailKind } from "./throttle.ts";
import { EmailTokens, type EmailClaims } from "./tokens.ts";
import { emailRoutes } from "./routes.ts";
import type { AuthRoute } from "../routes/route.ts";

/**
 * `Framework/EmailPasswordProvider`: registration in three verification modes,
 * login with counted failures, delay and lockout, verification and recovery by mailed links,
 * password change. Flows that a logged-out caller can start never reveal whether an email exists.
 */
export class EmailPasswordProvider extends EmailPasswordProviderDescription {
  private emailTokens: EmailTokens | undefined;
  private throttleRows: MailThrottle | undefined;
  private budgetRows: MailBudget | undefined;

  get auth(): AuthenticationService {
    const auth = authenticationOf(this.app);
    if (!auth) throw new Error(`service '${this.name}' needs a Framework/Authentication service`);
    return auth;
  }

  private now(): number {
    return this.auth.now();
  }

  get tokens(): EmailTokens {
    this.emailTokens ??= new EmailTokens(deriveKey(this.app.secret(), "email-tokens"), this.app.name, () => this.now());
    return this.emailTokens;
  }

  private get throttle(): MailThrottle {
    this.throttleRows ??= new MailThrottle(this.app.tableRepository(SESSIONS, sessionShape), () => this.now());
    return this.throttleRows;
  }

  private get budget(): MailBudget {
    this.budgetRows ??= new MailBudget(this.app.tableRepository(SESSIONS, sessionShape), () => this.now());
    return this.budgetRows;
  }

  authRoutes(): AuthRoute[] {
    return emailRoutes(this);
  }

  /** The verifiers of hashes that predate ours (v3's bcrypt) this function was composed with, if any. */
  private get legacyPasswords(): readonly HashVerifier[] {
    return this.app.capability(LEGACY_PASSWORDS) ?? [];
  }

  /** The one spelling of the address (./address.ts); a 400 naming `/email` when it has none. */
  normalize(raw: string): string {
    return canonicalEmail(raw);
  }

  redirect(key: keyof EmailProviderOptions["redirects"]): string {
    return this.options.redirects[key] ?? this.options.redirects.failure ?? "/";
  }

  private mailer(): MailerService | undefined {
    return this.app.services().find((e) => e.service instanceof MailerService)?.service as MailerService | undefined;
  }

  /** A mailed link: its base from configuration only (./links.ts), never from the request. */
  link(path: string, token: string): string {
    return mailLink(linkBase(this.name, EmailPasswordProvider.type, this.options), this.name, path, token);
  }

  /** One mail of `kind` (the route that asked), if every limit lets it (./limited-send.ts). */
  private async send(kind: MailKind, email: string, source: string | undefined, build: MailBuilder): Promise<void> {
    const limits = { provider: this.name, throttle: this.options.throttle, addresses: this.throttle, budget: this.budget, mailer: () => this.mailer() };
    await sendWithinLimits(limits, kind, email, source, build);
  }

  private checkDomain(email: string): void {
    const domains = this.options.allowedEmailDomains;
    if (domains && !domains.includes(email.slice(email.lastIndexOf("@") + 1))) {
      throw new AuthError(403, "EMAIL_DOMAIN_NOT_ALLOWED", "Registration is not open to this email domain");
    }
  }

  private checkOpen(): void {
    if (this.options.registration === "closed") throw new AuthError(403, "REGISTRATION_CLOSED", "Registration is closed");
  }

  /** Hashing a throwaway password keeps the unknown-email path as slow as the known one. */
  private async wasteHash(password: string | undefined): Promise<void> {
    await hashPassword(password ?? randomBytes(12).toString("base64url"), this.options.password.cost);
  }

  // ---------------------------------------------------------------- login

  /** Counts the login attempt on the address's ident before the password is checked (./attempt-gate.ts). */
  private countAttempt(email: string): Promise<Ident | undefined> {
    return countAttempt(this.options.throttle, () => this.now(), {
      read: () => this.auth.idents.find("email", email),
      countOf: (ident) => ({ counted: ident._loginAttempts, lastAt: ident._lastLoginAttemptAt }),
      write: (ident, attempts) =>
        this.auth.idents.patch(ident, { _loginAttempts: attempts, _lastLoginAttemptAt: new Date(this.now()).toISOString() }, [], ident[VERSION_FIELD]),
      busy: "Too many concurrent logins: try again",
    });
  }

  private async failed(email: string, reason: string): Promise<never> {
    countEvent("LoginFailures");
    await this.auth.publish("Authentication.LoginFailed", { provider: "email", email, reason });
    throw invalidCredentials();
  }

  async login(rawEmail: string, password: string): Promise<LoginResult> {
    const email = this.normalize(rawEmail);
    const ident = await this.countAttempt(email);
    if (!ident) {
      await passwordOf(undefined).verify(password, this.options.password.cost, this.legacyPasswords);
      return this.failed(email, "unknown");
    }
    const users = this.app.repository(this.auth.identityModel());
    // Read before the hash (lib/auth/sessions.ts): a change or recovery writes the hash first, so
    // if this login verifies the old password, the session it opens dies with the old generation.
    const generation = await this.auth.sessions.generation(ident.user);
    const user = await users.get({ uuid: ident.user });
    const behavior = passwordOf(user);
    if (!user || !(await behavior.verify(password, this.options.password.cost, this.legacyPasswords))) return this.failed(email, "password");
    if (this.options.verification === "before" && !ident.verifiedAt)
      throw new AuthError(403, "EMAIL_NOT_VERIFIED", "Confirm your email first: see the link we sent");
    await this.auth.idents.patch(ident, { _loginAttempts: 0 }, ["_lastLoginAttemptAt"]);
    if (behavior.needsRehash(this.options.password.cost)) {
      // Only over the version verified: a rehash must never put back a password changed meanwhile.
      await users
        .patch({ uuid: ident.user }, { password: await hashPassword(password, this.options.password.cost) }, [], {
          expectedVersion: (user[VERSION_FIELD] as number | undefined) ?? 0,
        })
        .catch((error: unknown) => {
          if (!(error instanceof PreconditionFailedError)) throw error;
        });
    }
    return this.auth.login(ident.user, "email", { ident: ident.uuid, generation });
  }

  // ---------------------------------------------------------------- registration

  /** Creates ident, user and password; ACCOUNT_EXISTS when the address has an ident. */
  private async createAccount(email: string, password: string, fields: Record<string, unknown>, verified: boolean): Promise<string> {
    const info = this.auth.identityModel();
    // `user.email` is the registered address, whatever the body said: the account's own ident.
    const { email: _given, ...userFields } = fields;
    checkNewUser(this.app, info, userFields);
    await checkPassword(this.app, this.options.password, password, email, namesOf(userFields));
    const stored = await hashPassword(password, this.options.password.cost);
    const uuid = randomUUID();
    try {
      await this.auth.idents.create({ provider: "email", providerUid: email, user: uuid, email, verified });
    } catch (error) {
      if (error instanceof Error && error.name === "ConflictError") throw new AuthError(409, "ACCOUNT_EXISTS", "An account already uses this email");
      throw error;
    }
    try {
      await createUser(this.app, info, userFields, uuid, email);
      await this.app.repository(info).patch({ uuid }, { password: stored }, []);
    } catch (error) {
      await this.auth.idents.delete({ uuid: `${email}:email` }).catch(() => undefined);
      throw error;
    }
    await this.auth.publish("Authentication.Register", { user: uuid, provider: "email", verified });
    return uuid;
  }

  /**
   * `before` without a token: mails a registration link and answers the same whether the address
   * is known or not. With the mailed token (or in `after`/`none` mode): creates the account and
   * logs in.
   */
  async register(
    body: { email: string; password?: string; user?: Record<string, unknown>; token?: string },
    source?: string,
  ): Promise<LoginResult | "MAIL_SENT"> {
    this.checkOpen();
    const email = this.normalize(body.email);
    this.checkDomain(email);
    const mode = this.options.verification;
    if (mode === "before" && body.token === undefined) {
      const known = await this.auth.idents.find("email", email);
      await this.wasteHash(body.password);
      // A known address gets a mail too (saying so, with the recovery route): the caller sees
      // the same answer after the same work either way.
      // Signed either way, used only for an unknown address: both answers take the same work.
      const token = await this.tokens.sign({ purpose: "register", email }, this.options.tokens.verification);
      await this.send("register", email, source, async () =>
        known ? accountExistsMail(this.app.name, email) : registrationMail(this.app.name, email, this.link(`${this.options.url}/verify`, token)),
      );
      return "MAIL_SENT";
    }
    let verified = false;
    if (mode === "before") {
      const claims = await this.tokens.verify(body.token as string, ["register"]);
      if (!claims || claims.email !== email) throw new AuthError(400, "INVALID_TOKEN", "The registration link is not valid (or has expired)");
      verified = true;
    }
    if (typeof body.password !== "string") throw new ValidationError([{ path: "/password", message: "is required" }]);
    const user = await this.createAccount(email, body.password, body.user ?? {}, verified);
    if (mode === "after") await this.sendVerification(email, user, source);
    return this.auth.login(user, "email", { ident: identKey("email", email) });
  }

  private async sendVerification(email: string, user: string, source: string | undefined): Promise<void> {
    await this.send("verification", email, source, async () =>
      verificationMail(
        this.app.name,
        email,
        this.link(`${this.options.url}/verify`, await this.tokens.sign({ purpose: "verify", email, sub: user }, this.options.tokens.verification)),
      ),
    );
  }

  /**
   * Logged out or in, the same answer after the same work (no account enumeration): a link for an unverified
   * ident (of the caller, when logged in), otherwise a mail saying there is nothing to confirm,
   * under the same throttle. Only the address's owner learns which.
   */
  async startVerification(rawEmail: string, userId: string | undefined, source?: string): Promise<void> {
    const email = this.normalize(rawEmail);
    const ident = await this.auth.idents.find("email", email);
    const eligible = ident !== undefined && !ident.verifiedAt && (userId === undefined || ident.user === userId);
    const token = await this.tokens.sign({ purpose: "verify", email, sub: ident?.user ?? randomUUID() }, this.options.tokens.verification);
    await this.send("verification", email, source, async () =>
      eligible ? verificationMail(this.app.name, email, this.link(`${this.options.url}/verify`, token)) : nothingToDoMail(this.app.name, email, "verification"),
    );
  }

  /** The link route: where the browser goes next (the matching session, or LOGIN_REQUIRED). */
  async verifyLink(token: string | undefined, userId: string | undefined): Promise<string> {
    const claims = token ? await this.tokens.verify(token, ["verify", "register"]) : undefined;
    const failure = (reason: string) => withParams(this.redirect("failure"), { reason });
    if (!claims || !token) return failure("INVALID_TOKEN");
    if (claims.purpose === "register") return withParams(this.redirect("register"), { token });
    if (userId === undefined || userId !== claims.sub) return withParams(this.redirect("confirm"), { reason: "LOGIN_REQUIRED", token });
    const ident = await this.auth.idents.find("email", claims.email);
    if (!ident || ident.user !== claims.sub) return failure("INVALID_TOKEN");
    if (!ident.verifiedAt) await this.auth.idents.patch(ident, { verifiedAt: new Date(this.now()).toISOString() });
    return this.redirect("verified");
  }

  // ---------------------------------------------------------------- recovery and change

  private fingerprint(user: Record<string, unknown> | undefined): string {
    const state = user?.password as { __hash?: unknown } | undefined;
    return sha256Hex(`recover:${typeof state?.__hash === "string" ? state.__hash : "none"}`).slice(0, 32);
  }

  async startRecovery(rawEmail: string, source?: string): Promise<void> {
    const email = this.normalize(rawEmail);
    const ident = await this.auth.idents.find("email", email);
    // An unknown address reads a user and signs a token too, and gets a mail saying it has no
    // account: the answer takes the same work, so its timing does not tell the caller either.
    const sub = ident?.user ?? randomUUID();
    const user = await this.app.repository(this.auth.identityModel()).get({ uuid: sub });
    const token = await this.tokens.sign({ purpose: "recover", email, sub, pwd: this.fingerprint(user) }, this.options.tokens.recovery);
    await this.send("recovery", email, source, async () =>
      ident ? recoveryMail(this.app.name, email, this.link(`${this.options.url}/recover`, token)) : nothingToDoMail(this.app.name, email, "recovery"),
    );
  }

  async recoverLink(token: string | undefined): Promise<string> {
    return token ? withParams(this.redirect("recover"), { token }) : withParams(this.redirect("failure"), { reason: "INVALID_TOKEN" });
  }

  /**
   * Recovery: sets the password, marks the email verified, resets the login attempts, revokes
   * every session (their cookies, refresh tokens and access tokens), then logs in afresh.
   */
  async recover(token: string, password: string): Promise<LoginResult> {
    const claims: EmailClaims | undefined = await this.tokens.verify(token, ["recover"]);
    const invalid = () => new AuthError(400, "INVALID_TOKEN", "The recovery link is not valid (or was used, or has expired)");
    if (!claims?.sub) throw invalid();
    const users = this.app.repository(this.auth.identityModel());
    const user = await users.get({ uuid: claims.sub });
    if (!user || claims.pwd !== this.fingerprint(user)) throw invalid();
    const ident = await this.auth.idents.find("email", claims.email);
    if (!ident || ident.user !== claims.sub) throw invalid();
    await checkPassword(this.app, this.options.password, password, claims.email, namesOf(user));
    await this.writeOverFingerprint(
      claims as EmailClaims & { sub: string },
      user,
      { password: await hashPassword(password, this.options.password.cost) },
      invalid,
    );
    await this.auth.idents.patch(ident, { _loginAttempts: 0, ...(ident.verifiedAt ? {} : { verifiedAt: new Date(this.now()).toISOString() }) }, [
      "_lastLoginAttemptAt",
    ]);
    const { generation } = await this.auth.sessions.revokeAll(claims.sub);
    await this.auth.publish("Authentication.PasswordChanged", { user: claims.sub, by: "recovery" });
    return this.auth.login(claims.sub, "email", { ident: ident.uuid, generation });
  }

  /**
   * The recovery write holds only over the password the token was issued against (one link, one
   * use): conditional on the user row's version, re-read and retried when another field
   * changed meanwhile, refused once the password itself did. Of two uses of one link at once,
   * one sets the password and the other answers INVALID_TOKEN.
   */
  private async writeOverFingerprint(
    claims: EmailClaims & { sub: string },
    read: Record<string, unknown>,
    set: Record<string, unknown>,
    invalid: () => Error,
  ): Promise<void> {
    const users = this.app.repository(this.auth.identityModel());
    let user: Record<string, unknown> | undefined = read;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!user || claims.pwd !== this.fingerprint(user)) throw invalid();
      try {
        await users.patch({ uuid: claims.sub }, set, [], { expectedVersion: versionOf(user) });
        return;
      } catch (error) {
        if (!(error instanceof PreconditionFailedError)) throw error;
      }
      user = await users.get({ uuid: claims.sub });
    }
    throw new AuthError(429, "TOO_MANY_ATTEMPTS", "The account changed while the password was being set: try again", 1);
  }

  /**
   * A password change: the other sessions end, and so do earlier access tokens: the caller gets a new
   * session. Wrong current passwords are counted on the caller's session, not on the login's
   * count: a stolen session cannot guess without limit, and someone guessing at the login (or
   * logging in) cannot make the owner's change wait.
   */
  async changePassword(caller: { userId: string; sessionId: string }, current: string, next: string): Promise<LoginResult> {
    const { userId } = caller;
    await this.countChangeAttempt(caller);
    const ident = (await this.auth.idents.listByUser(userId)).find((i) => i.provider === "email");
    const users = this.app.repository(this.auth.identityModel());
    const user = ident ? await users.get({ uuid: userId }) : undefined;
    if (!ident || !user || !(await passwordOf(user).verify(current, this.options.password.cost, this.legacyPasswords)))
      throw new AuthError(401, "INVALID_CREDENTIALS", "The current password is wrong");
    await checkPassword(this.app, this.options.password, next, ident.email ?? "", namesOf(user));
    await users.patch({ uuid: userId }, { password: await hashPassword(next, this.options.password.cost) }, []);
    // Every session ends, the caller's (and its count) included; the new one is opened under the new generation.
    const { generation } = await this.auth.sessions.revokeAll(userId);
    await this.auth.publish("Authentication.PasswordChanged", { user: userId, by: "change" });
    return this.auth.login(userId, "email", { ident: ident.uuid, generation });
  }

  /** Counts the attempt on the caller's session before the password is checked (./attempt-gate.ts). */
  private async countChangeAttempt(caller: { userId: string; sessionId: string }): Promise<void> {
    await countAttempt(this.options.throttle, () => this.now(), {
      read: async () => {
        const session = await this.auth.sessions.get(caller.sessionId, caller.userId);
        if (!Sessions.acceptsAccessTokens(session)) throw loginRequired();
        return session;
      },
      countOf: (session) => ({ counted: session._changeAttempts, lastAt: session._lastChangeAttemptAt }),
      write: (session, attempts) => this.auth.sessions.countChangeAttempt(session, attempts),
      busy: "Too many concurrent attempts: try again",
    });
  }
}

/** The account's names a password may not be: its string `username` and `name`, as given or stored. */
function namesOf(record: Record<string, unknown> | undefined): string[] {
  return [record?.username, record?.name].filter((v): v is string => typeof v === "string");
}

function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
