// @ts-check
// Which functions belong together: a function whose HTTP routes all start with the same path
// segment (`/posts`, `/posts/{slug}`, `/posts/{slug}/publish` -> `posts`) serves one model or
// service, so its functions share a log group and, in a large application, a nested stack. The
// catch-all (`httpApi: '*'`) and functions without HTTP routes (WebSocket, streams, schedules)
// belong to no group and stay in the root stack with the API, the tables and the role.

/**
 * @param {string} path an httpApi event path
 * @returns {string | undefined} its first segment, or undefined for the catch-all
 */
export function firstSegment(path) {
  const segment = String(path)
    .split("/")
    .find((part) => part !== "");
  return segment === undefined || segment === "*" ? undefined : segment;
}

/**
 * The httpApi paths of a serverless function declaration.
 * @param {{ events?: unknown[] }} fn
 * @returns {(string | null)[]}
 */
function httpPaths(fn) {
  return (fn.events ?? []).map((event) => {
    const http = /** @type {{ httpApi?: string | { path: string } } | undefined} */ (event)?.httpApi;
    if (http === undefined) return null;
    return typeof http === "string" ? (http.split(" ").at(-1) ?? "") : http.path;
  });
}

/**
 * The group of each serverless function, by its name in `service.functions`.
 * @param {Record<string, { events?: unknown[] }>} functions
 * @returns {Map<string, string>} function name -> group (path segment)
 */
export function routeGroups(functions) {
  /** @type {Map<string, string>} */
  const groups = new Map();
  for (const [name, fn] of Object.entries(functions ?? {})) {
    const paths = httpPaths(fn);
    if (paths.length === 0) continue;
    /** @type {Set<string | undefined>} */
    const segments = new Set();
    for (const path of paths) segments.add(path === null ? undefined : firstSegment(path));
    const [segment] = segments;
    if (segments.size !== 1 || segment === undefined) continue;
    groups.set(name, segment);
  }
  return groups;
}

/**
 * `posts` -> `Posts`, `.well-known` -> `WellKnown`: a group's part of a logical id.
 * @param {string} group
 * @returns {string}
 */
export function pascal(group) {
  return String(group)
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}
