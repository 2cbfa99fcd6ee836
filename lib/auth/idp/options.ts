import { ConfigurationError } from "../../core/config.ts";
import { Type, type Static } from "../../core/schema.ts";

/**
 * Options of `Framework/IdpProvider`. The client secret is not among them: it never
 * sits in the application definition (which is source code) but comes from the deploy parameter
 * `idpClientSecret` or a secret store, through the `IDP_CLIENT_SECRET` environment variable.
 */
export const IdpOptionsSchema = Type.Object({
  /** Where the browser flow starts; the callback is `<url>/callback`. */
  url: Type.String({ pattern: "^/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$", default: "/auth/idp" }),
  /** The OpenID Connect issuer; its endpoints come from `<issuer>/.well-known/openid-configuration`. */
  issuer: Type.String({ format: "uri" }),
  clientId: Type.String({ minLength: 1 }),
  /** Absolute URLs: a `redirect` target must have the same origin and a path under one of them. */
  authorized_uris: Type.Array(Type.String({ format: "uri" }), { default: [] }),
  redirects: Type.Object(
    {
      success: Type.String({ format: "uri" }),
      failure: Type.String({ format: "uri" }),
    },
    { additionalProperties: false },
  ),
  scope: Type.String({ default: "openid email profile" }),
  /** Further `aud` values accepted from ID tokens given to POST auth/idp/token (e.g. a mobile app's client id). */
  audiences: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  /** The `hd` claim an ID token must carry (Google Workspace domain); asked of the provider too. */
  hostedDomain: Type.Optional(Type.String({ minLength: 1 })),
  /** When set, only emails in these domains, marked `email_verified` by the provider, may log in. */
  allowedEmailDomains: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  /**
   * Lets an address the provider does not mark verified pass `allowedEmailDomains`. Off by default:
   * anyone can type an address in your domain at many providers, and only `email_verified` says
   * the provider checked that it is theirs.
   */
  allowUnverifiedEmailDomains: Type.Boolean({ default: false }),
  /** Whether the provider's `email_verified` counts as a verified email for linking (lib/auth/link-policy.ts). */
  trustEmailVerification: Type.Boolean({ default: true }),
  /** The redirect URI registered at the provider, when not `<origin><url>/callback` (a proxy, a custom domain). */
  redirect_uri: Type.Optional(Type.String({ format: "uri" })),
});

export type IdpOptions = Static<typeof IdpOptionsSchema>;

/** v3 options that no longer exist, and what a v4 configuration says instead. */
const REMOVED: Record<string, string> = {
  no_referer: "the Referer is never used any more: remove it",
  exposeScope: "removed: the provider's tokens reach listeners of the IdpAuth.Tokens event",
  authenticationService: "removed: the Framework/Authentication service is found by its type",
  project_id: "removed: configure the provider's `issuer` and `clientId`",
  whitelist: "use `authorized_uris` (absolute URLs, matched on origin and path prefix)",
  defaults: "use `redirects.success` and `redirects.failure`",
  "redirects.use_referer": "use the `redirect` query parameter checked against `authorized_uris`, else `redirects.success`",
};

/**
 * Refuses the options v3 had and v4 removed, each with what replaces it, before the schema check
 * would call them merely unknown. Returns the problems, one line each.
 */
export function removedOptionProblems(given: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const redirects = given.redirects;
  for (const [option, replacement] of Object.entries(REMOVED)) {
    const [head, tail] = option.split(".") as [string, string?];
    const present = tail === undefined ? head in given : typeof redirects === "object" && redirects !== null && tail in redirects;
    if (present) problems.push(`option '${option}' was removed in v4: ${replacement}`);
  }
  return problems;
}

/** Checks what the schema cannot say: absolute http(s) URLs, no fragments or credentials. */
export function checkIdpOptions(serviceName: string, options: IdpOptions): void {
  const problems: string[] = [];
  const urls: [string, string][] = [
    ["issuer", options.issuer],
    ["redirects.success", options.redirects.success],
    ["redirects.failure", options.redirects.failure],
    ...options.authorized_uris.map((u, i): [string, string] => [`authorized_uris.${i}`, u]),
    ...(options.redirect_uri ? [["redirect_uri", options.redirect_uri] as [string, string]] : []),
  ];
  for (const [option, value] of urls) {
    const problem = urlProblem(value);
    if (problem) problems.push(`option '${option}' ${problem}`);
  }
  if (!options.scope.split(/\s+/).includes("openid")) problems.push("option 'scope' must include openid");
  if (problems.length > 0) {
    throw new ConfigurationError(
      `Invalid application configuration:\n  ${problems.map((p) => `service '${serviceName}' (Framework/IdpProvider): ${p}`).join("\n  ")}`,
    );
  }
}

function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http(s) URL";
  if (url.username || url.password) return "must not carry credentials";
  if (url.hash) return "must not carry a fragment";
  return undefined;
}
