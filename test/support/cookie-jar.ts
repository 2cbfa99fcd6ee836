/**
 * A small cookie jar for tests that walk a browser flow with fetch: cookies per host (path and
 * expiry honoured, Max-Age=0 deletes), redirects followed by hand so each hop can be inspected.
 */
interface Stored {
  value: string;
  path: string;
  expires: number | undefined;
}

export class CookieJar {
  private readonly byHost = new Map<string, Map<string, Stored>>();

  store(url: string, setCookies: readonly string[]): void {
    const host = new URL(url).host;
    const jar = this.byHost.get(host) ?? new Map<string, Stored>();
    this.byHost.set(host, jar);
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";").map((p) => p.trim());
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = "/";
      let expires: number | undefined;
      for (const attribute of attributes) {
        const [key = "", val = ""] = attribute.split("=");
        if (key.toLowerCase() === "path") path = val;
        if (key.toLowerCase() === "max-age") expires = Date.now() + Number(val) * 1000;
        if (key.toLowerCase() === "expires" && expires === undefined) expires = Date.parse(val);
      }
      if (expires !== undefined && expires <= Date.now()) jar.delete(name);
      else jar.set(name, { value, path, expires });
    }
  }

  /** The Cookie header for a URL, or undefined. */
  header(url: string): string | undefined {
    const { host, pathname } = new URL(url);
    const jar = this.byHost.get(host);
    if (!jar) return undefined;
    const pairs: string[] = [];
    for (const [name, c] of jar) {
      if (c.expires !== undefined && c.expires <= Date.now()) continue;
      if (pathname === c.path || pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`)) pairs.push(`${name}=${c.value}`);
    }
    return pairs.length > 0 ? pairs.join("; ") : undefined;
  }

  get(host: string, name: string): string | undefined {
    return this.byHost.get(host)?.get(name)?.value;
  }

  set(host: string, name: string, value: string, path = "/"): void {
    const jar = this.byHost.get(host) ?? new Map<string, Stored>();
    this.byHost.set(host, jar);
    jar.set(name, { value, path, expires: undefined });
  }

  /** One request, no redirect followed; cookies stored. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = this.header(url);
    const headers = new Headers(init.headers);
    if (cookie) headers.set("cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    this.store(url, response.headers.getSetCookie());
    return response;
  }
}

/** The absolute target of a redirect answer. */
export function locationOf(response: Response, base: string): string {
  const location = response.headers.get("location");
  if (!location) throw new Error(`expected a redirect from ${base}, got ${response.status}`);
  return new URL(location, base).href;
}
