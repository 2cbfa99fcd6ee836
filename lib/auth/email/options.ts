import type { Static } from "@sinclair/typebox";
import { Type } from "../../core/schema.ts";
import { ConfigurationError } from "../../core/config.ts";

const url = Type.String({ format: "uri" });

/** Options of `Framework/EmailPasswordProvider` (README, Authentication). Durations in seconds. */
export const emailProviderOptions = Type.Object({
  /** Where the provider's routes live (`<url>/login`, ...). */
  url: Type.String({ pattern: "^/[a-z0-9/-]*[a-z0-9]$", default: "/auth/email" }),
  verification: Type.Union([Type.Literal("before"), Type.Literal("after"), Type.Literal("none")], { default: "before" }),
  password: Type.Object(
    {
      policy: Type.Object(
        {
          minLength: Type.Integer({ minimum: 8, maximum: 128, default: 8 }),
          maxLength: Type.Integer({ minimum: 16, maximum: 1024, default: 256 }),
          /** A regular expression the password must match, e.g. "[0-9]" for at least one digit. */
          pattern: Type.Optional(Type.String({ minLength: 1 })),
          /**
           * Refuse the most common passwords (a list shipped with the package,
           * lib/auth/email/common-passwords.ts); a configured `verifier` decides instead.
           */
          common: Type.Boolean({ default: true }),
          /** Refuse a password holding the account's own address, its local part, or its name. */
          personal: Type.Boolean({ default: true }),
        },
        { default: {} },
      ),
      /**
       * Name of a service with `verifyPassword(password, {email, names})` => true | reason (e.g. a
       * breached-password list): it replaces the built-in common-password list.
       */
      verifier: Type.Optional(Type.String({ minLength: 1 })),
      /** scrypt cost of new hashes; OWASP's floor (N=2^17, r=8, p=1) by default; older hashes are raised at login. */
      cost: Type.Object(
        {
          ln: Type.Integer({ minimum: 10, maximum: 20, default: 17 }),
          r: Type.Integer({ minimum: 8, maximum: 32, default: 8 }),
          p: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
        },
        { default: {} },
      ),
    },
    { default: {} },
  ),
  throttle: Type.Object(
    {
      /** At most one mail per address per this many seconds. */
      resendDelay: Type.Integer({ minimum: 0, default: 60 }),
      /**
       * At most this many mails per minute for the whole service, across every instance; beyond
       * it the mail routes answer as always and send nothing (docs/authentication.md).
       */
      mailsPerMinute: Type.Integer({ minimum: 1, default: 100 }),
      /**
       * At most this many mails per minute asked from one source address (API Gateway's source IP,
       * an IPv6 address by its /64), counted before the service-wide budget, so no one caller can
       * spend it all (docs/authentication.md, "Mail limits").
       */
      mailsPerSourcePerMinute: Type.Integer({ minimum: 1, default: 10 }),
      /** Failed logins allowed before each further attempt must wait. */
      failedBeforeDelay: Type.Integer({ minimum: 1, default: 3 }),
      /** The first wait; it doubles with each further failure (at most 5 minutes). */
      delay: Type.Integer({ minimum: 1, maximum: 300, default: 2 }),
      lockout: Type.Object(
        {
          /** Failed logins in a row that lock the ident; 0 never locks. */
          after: Type.Integer({ minimum: 0, default: 10 }),
          duration: Type.Integer({ minimum: 1, default: 900 }),
        },
        { default: {} },
      ),
    },
    { default: {} },
  ),
  redirects: Type.Object(
    {
      failure: Type.Optional(url),
      verified: Type.Optional(url),
      register: Type.Optional(url),
      recover: Type.Optional(url),
      /** Where a verify link opened without the matching session goes (`?reason=LOGIN_REQUIRED&token=`); `failure` when unset. */
      confirm: Type.Optional(url),
    },
    { default: {} },
  ),
  linking: Type.Union([Type.Literal("verified"), Type.Literal("never")], { default: "verified" }),
  registration: Type.Union([Type.Literal("open"), Type.Literal("closed")], { default: "open" }),
  /** Lowercase domains allowed to register (e.g. "example.com"); any when unset. */
  allowedEmailDomains: Type.Optional(Type.Array(Type.String({ pattern: "^[a-z0-9.-]+$" }), { minItems: 1 })),
  /** Whether an email verified here counts as verified for account linking (lib/auth/link-policy.ts). */
  trustEmailVerification: Type.Boolean({ default: true }),
  /** The API's public base URL for links in mails; the request's own host when unset. */
  publicUrl: Type.Optional(url),
  /** Lifetimes of the links mailed. */
  tokens: Type.Object(
    {
      verification: Type.Integer({ minimum: 300, default: 86400 }),
      recovery: Type.Integer({ minimum: 300, maximum: 86400, default: 3600 }),
    },
    { default: {} },
  ),
});

export type EmailProviderOptions = Static<typeof emailProviderOptions>;
export type Redirect = keyof EmailProviderOptions["redirects"];

/** A missing required redirect refuses the start, naming the key: the flow would have nowhere to send the browser. */
export function checkRedirects(service: string, type: string, options: EmailProviderOptions): void {
  const required: Redirect[] = options.verification === "none" ? ["failure", "recover"] : ["failure", "verified", "register", "recover"];
  const missing = required.filter((key) => !options.redirects[key]);
  if (missing.length > 0) {
    throw new ConfigurationError(
      `Invalid application configuration:\n  ${missing.map((key) => `service '${service}' (${type}): option 'redirects.${key}' is required${options.verification === "none" ? "" : ` (verification '${options.verification}')`}`).join("\n  ")}`,
    );
  }
}

/** OWASP's password storage floor for scrypt: N=2^17 (ln 17), r=8, p=1. */
export const OWASP_SCRYPT_FLOOR = { ln: 17, r: 8, p: 1 } as const;

/**
 * Tests and `npm start` may hash cheaper; a Lambda runtime never does: AWS sets AWS_EXECUTION_ENV
 * in every Lambda, so a weaker cost refuses the start there whatever else the environment says.
 */
export function checkCost(service: string, type: string, cost: { ln: number; r: number; p: number }, env: NodeJS.ProcessEnv = process.env): void {
  const weaker = cost.ln < OWASP_SCRYPT_FLOOR.ln || cost.r < OWASP_SCRYPT_FLOOR.r || cost.p < OWASP_SCRYPT_FLOOR.p;
  if (weaker && env.AWS_EXECUTION_ENV !== undefined) {
    throw new ConfigurationError(
      `Invalid application configuration:\n  service '${service}' (${type}): option 'password.cost' is below OWASP's floor (ln 17, r 8, p 1), which a Lambda runtime refuses`,
    );
  }
}
