import type { Application } from "../../core/application.ts";
import { authRoutes } from "./list.ts";

const HANDLER = "functions/auth.handler";

/**
 * The auth routes as Lambda functions behind API Gateway, grouped like the derived REST routes:
 * one function per route (`rest.packaging: route`, the default), else one for all of them.
 */
export function authFunctions(app: Application): Record<string, { handler: string; description: string; events: { httpApi: { method: string; path: string } }[] }> {
  const routes = authRoutes(app);
  if (routes.length === 0) return {};
  const event = (r: { method: string; path: string }) => ({ httpApi: { method: r.method, path: r.path } });
  if ((app.definition.rest?.packaging ?? "route") !== "route") {
    return { auth: { handler: HANDLER, description: "authentication routes", events: routes.map(event) } };
  }
  return Object.fromEntries(routes.map((r) => [r.id, { handler: HANDLER, description: `${r.method} ${r.path}`, events: [event(r)] }]));
}

/** OpenAPI path items of the auth routes (their bodies are documented in the README). */
export function authOpenApiPaths(app: Application): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  const json = { "application/json": { schema: { type: "object" } } };
  for (const r of authRoutes(app)) {
    const params = [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    paths[r.path] ??= {};
    (paths[r.path] as Record<string, unknown>)[r.method.toLowerCase()] = {
      operationId: r.operation,
      tags: ["Authentication"],
      summary: r.summary,
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(r.method === "POST" ? { requestBody: { required: true, content: json } } : {}),
      responses: {
        "200": { description: "Success", content: json },
        "400": { description: "Invalid input", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        default: { description: "An auth error: `reason` names it", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
  }
  return paths;
}
