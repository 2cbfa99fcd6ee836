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
  const segment = String(path).split("/").find((part) => part !== "");
  return segment === undefined || segment === "*" ? undefined : segment;
}

/** The httpApi paths of a serverless function declaration. */
function httpPaths(fn) {
  return (fn.events ?? []).map((event) => {
    const http = event?.httpApi;
    if (http === undefined) return null;
    return typeof http === "string" ? http.split(" ").at(-1) : http.path;
  });
}

/**
 * The group of each serverless function, by its name in `service.functions`.
 * @param {Record<string, { events?: unknown[] }>} functions
 * @returns {Map<string, string>} function name -> group (path segment)
 */
export function routeGroups(functions) {
  const groups = new Map();
  for (const [name, fn] of Object.entries(functions ?? {})) {
    const paths = httpPaths(fn);
    if (paths.length === 0 || paths.includes(null)) continue;
    const segments = new Set(paths.map(firstSegment));
    if (segments.size !== 1 || segments.has(undefined)) continue;
    groups.set(name, [...segments][0]);
  }
  return groups;
}

/** `posts` -> `Posts`, `.well-known` -> `WellKnown`: a group's part of a logical id. */
export function pascal(group) {
  return String(group)
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}
