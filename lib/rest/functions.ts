import type { RestOptions } from "../core/application.ts";
import { isRecordRead, type Route } from "./routes.ts";

export interface ServerlessFunction {
  handler: string;
  description?: string;
  events: ({ httpApi: { method: string; path: string } } | { httpApi: "*" })[];
}

const HANDLER = "functions/rest.handler";
/** A record read's own function: lighter to load (lib/rest/read-handler.ts). */
const READ_HANDLER = "functions/rest-read.handler";
const FALLBACK = "rest-fallback";

function events(routes: Route[]): ServerlessFunction["events"] {
  return routes.map((r) => ({ httpApi: { method: r.method, path: r.path } }));
}

function functionKey(name: string): string {
  // Lambda names are `<service>-<stage>-<key>`, at most 64 characters in all.
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 40);
}

/**
 * The serverless `functions` block for the derived routes: one API Gateway route per derived
 * route, grouped into functions by the packaging option, plus a catch-all that answers unknown
 * paths (404) and wrong methods (405 with Allow) in our own error format.
 */
export function serverlessFunctions(routes: Route[], options: RestOptions = {}): Record<string, ServerlessFunction> {
  const packaging = options.packaging ?? "route";
  const out: Record<string, ServerlessFunction> = {};
  if (packaging === "single") {
    out.rest = { handler: HANDLER, description: "every derived REST route", events: [...events(routes), { httpApi: "*" }] };
    return out;
  }
  if (packaging === "model") {
    const groups = new Map<string, Route[]>();
    for (const r of routes) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
    for (const [group, members] of groups)
      out[functionKey(`rest-${group}`)] = { handler: HANDLER, description: `REST routes of ${group}`, events: events(members) };
  } else {
    for (const r of routes) out[functionKey(`rest-${r.id}`)] = { handler: isRecordRead(r) ? READ_HANDLER : HANDLER, description: r.key, events: events([r]) };
  }
  out[FALLBACK] = { handler: HANDLER, description: "unknown routes: 404, or 405 with Allow", events: [{ httpApi: "*" }] };
  return out;
}

/**
 * Rough CloudFormation resource count of functions behind an HTTP API: a function, its
 * permission and integration, and a route per event (no versions; log groups are shared by route
 * group, lib/cli/stacks/shared-log-groups.mjs, and left out here).
 */
export function estimatedResources(functions: Record<string, ServerlessFunction>): number {
  let total = 0;
  for (const fn of Object.values(functions)) total += 3 + fn.events.length;
  return total;
}
