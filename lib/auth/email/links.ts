import { ConfigurationError } from "../../core/config.ts";

/**
 * Where mailed links point: configuration only, never a request header. The
 * Host and X-Forwarded-* headers are the caller's to write, so a recovery link built from them
 * carried its token to any page the caller named. The base is the provider's `publicUrl` option,
 * else the `PUBLIC_URL` environment variable (serverless.yml fills it from `--param publicUrl`;
 * `npm start` passes its own listening origin).
 */
const UNSET = new Set(["", "null", "unset", "undefined"]);

export interface LinkBaseSource {
  publicUrl?: string | undefined;
}

/** The configured base, checked; undefined when none is configured. */
export function linkBase(service: string, type: string, options: LinkBaseSource, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.PUBLIC_URL !== undefined && !UNSET.has(env.PUBLIC_URL) ? env.PUBLIC_URL : undefined;
  const raw = options.publicUrl ?? fromEnv;
  const refuse = (problem: string): never => {
    throw new ConfigurationError(`Invalid application configuration:\n  service '${service}' (${type}): option 'publicUrl' ${problem}`);
  };
  if (raw === undefined) {
    // A Lambda runtime always sets AWS_EXECUTION_ENV: a deployed provider never starts without a base.
    if (env.AWS_EXECUTION_ENV !== undefined)
      refuse("is required in a deployed stage (the API's public https URL, e.g. --param publicUrl=https://api.example.com)");
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(`must be an absolute URL, not ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") refuse("must be an http or https URL");
  if (url.username !== "" || url.password !== "" || /[?#]/.test(raw)) refuse("must have no credentials, query or fragment");
  if (url.protocol !== "https:" && env.AWS_EXECUTION_ENV !== undefined) refuse("must be https in a deployed stage: a link carries a token");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** `<base><path>?token=<token>`; without a configured base, a refusal rather than a guess. */
export function mailLink(base: string | undefined, service: string, path: string, token: string): string {
  if (base === undefined) {
    throw new ConfigurationError(`service '${service}' (Framework/EmailPasswordProvider): option 'publicUrl' (or PUBLIC_URL) is required to mail links`);
  }
  return `${base}${path}?token=${encodeURIComponent(token)}`;
}
