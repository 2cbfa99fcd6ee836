import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Application } from "../core/application.ts";
import { authFunctions } from "../auth/routes/serverless.ts";
import { deriveRoutes } from "../rest/routes.ts";
import { serverlessFunctions } from "../rest/functions.ts";
import { openApiDocument } from "../rest/openapi.ts";

export const REBUILD_COMMAND = "npm run build";

export type CacheFiles = Record<string, string>;
export type CacheRenderer = (app: Application) => CacheFiles | Promise<CacheFiles>;

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** provider.httpApi: payload 2.0, and CORS only for the origins the application names. */
function httpApiConfig(origins: string[]): Record<string, unknown> {
  if (origins.length === 0) return { payload: "2.0" };
  return {
    payload: "2.0",
    cors: {
      allowedOrigins: origins,
      allowedHeaders: ["Content-Type", "Authorization", "If-Match", "If-None-Match"],
      allowedMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      exposedResponseHeaders: ["ETag", "Retry-After"],
      allowCredentials: true,
      maxAge: 600,
    },
  };
}

/** The REST route table and what serverless.yml includes for it: functions, HTTP API, OpenAPI. */
export const restCache: CacheRenderer = (app) => {
  const routes = deriveRoutes(app);
  return {
    "routes.json": json(routes.map(({ key, target, id }) => ({ key, id, target }))),
    "functions.json": json(serverlessFunctions(routes, app.definition.rest)),
    "auth-functions.json": json(authFunctions(app)),
    "openapi.json": json(openApiDocument(app, routes)),
    "http-api.json": json(httpApiConfig(app.definition.rest?.corsOrigins ?? [])),
  };
};

/** Everything `schema-cache/` holds, rendered from the models: the generator stays the single source. */
export async function renderCache(app: Application, renderers: CacheRenderer[]): Promise<CacheFiles> {
  const files: CacheFiles = {};
  for (const render of renderers) Object.assign(files, await render(app));
  return files;
}

export async function writeCache(dir: string, files: CacheFiles): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const changed = await staleFiles(dir, files);
  for (const name of changed) await writeFile(join(dir, name), files[name] as string);
  return changed;
}

/** The cache files whose committed content differs from what the models generate now. */
export async function staleFiles(dir: string, files: CacheFiles): Promise<string[]> {
  const stale: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    const current = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (current !== content) stale.push(name);
  }
  return stale;
}

export function staleMessage(stale: string[]): string {
  return `schema-cache/ is stale (${stale.join(", ")}): the models changed since it was built. Run \`${REBUILD_COMMAND}\` and commit the result.`;
}
