/**
 * Where the browser goes after the flow. A requested target is compared with `authorized_uris`
 * only after the WHATWG URL parser has normalised both (scheme and host case, default ports,
 * IDNA, `.`/`..` segments, backslashes): never with a regular expression or a string prefix on
 * the raw text, which is how open redirects are born. The browser is then sent to the parsed
 * URL's serialisation, so it cannot read the target differently from how it was checked.
 */

const MAX_TARGET_LENGTH = 2048;

/**
 * Escapes that some servers decode after routing (`%2F`, `%5C`), dots the parser left encoded
 * inside a segment, and double encoding: a checked path must mean one thing to everyone.
 */
const AMBIGUOUS_ESCAPE = /%(2f|5c|2e|25|00)/i;

export interface AllowedPrefix {
  origin: string;
  /** Normalised path; ends with `/` unless it is a full file-like path, compared segment-wise. */
  path: string;
}

export function allowedPrefixes(authorizedUris: readonly string[]): AllowedPrefix[] {
  return authorizedUris.map((uri) => {
    const url = new URL(uri);
    return { origin: url.origin, path: url.pathname };
  });
}

function parseAbsolute(target: string): URL | undefined {
  if (target.length === 0 || target.length > MAX_TARGET_LENGTH) return undefined;
  // Control characters and whitespace are stripped or tolerated by parsers in different ways.
  if ([...target].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return undefined;
  let url: URL;
  try {
    // No base URL: a relative or scheme-relative target (`//evil.example`) does not parse.
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.username !== "" || url.password !== "") return undefined;
  return url;
}

function underPath(path: string, prefix: string): boolean {
  if (path === prefix) return true;
  const base = prefix.endsWith("/") ? prefix : `${prefix}/`;
  return path.startsWith(base);
}

/** The normalised target when it passes one of the prefixes, otherwise undefined. */
export function authorizedTarget(target: string | undefined, prefixes: readonly AllowedPrefix[]): string | undefined {
  if (target === undefined) return undefined;
  const url = parseAbsolute(target);
  if (!url) return undefined;
  if (AMBIGUOUS_ESCAPE.test(url.pathname)) return undefined;
  const allowed = prefixes.some((p) => p.origin === url.origin && underPath(url.pathname, p.path));
  return allowed ? url.href : undefined;
}

/** `redirects.failure` with `reason=<CODE>` added to whatever query it already has. */
export function failureTarget(failure: string, reason: string): string {
  const url = new URL(failure);
  url.searchParams.set("reason", reason);
  return url.href;
}
