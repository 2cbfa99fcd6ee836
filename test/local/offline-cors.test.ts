import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { restCache } from "../../lib/cli/cache.ts";
import OfflineCorsPlugin, { gatewayCors, type HttpApiCors } from "../../lib/local/offline-cors.mjs";
import { definition } from "../fixtures/blog/index.ts";
import { inProcess } from "../support/parts.ts";
import type { Serverless } from "../../lib/core/serverless-host.ts";

/**
 * Cross-origin reads of `npm start`: it must answer CORS as the deployed HTTP API does, from the one
 * configuration both read (`provider.httpApi.cors` = schema-cache/http-api.json, rendered from
 * `rest.corsOrigins`). serverless-offline reflects any Origin with credentials; the plugin
 * replaces that on offline's own Hapi server.
 */

const ALLOWED = "https://app.example";
const FOREIGN = "http://127.0.0.1:8080";

async function httpApiOf(corsOrigins: string[] | undefined): Promise<{ payload: string; cors?: HttpApiCors }> {
  const app = new Application({ ...definition, rest: { ...definition.rest, ...(corsOrigins ? { corsOrigins } : {}) } }, inProcess);
  return JSON.parse((await restCache(app))["http-api.json"] as string) as { payload: string; cors?: HttpApiCors };
}

describe("API Gateway's CORS answer, from the packaged configuration", () => {
  it("sends nothing, preflight or not, for any Origin when rest.corsOrigins is empty (the sample's default)", async () => {
    const { cors } = await httpApiOf(undefined);
    expect(cors).toBeUndefined();
    for (const origin of [FOREIGN, ALLOWED, undefined]) {
      expect(gatewayCors(cors, { method: "OPTIONS", origin, requestMethod: "GET" })).toEqual({ preflight: false, headers: {} });
      expect(gatewayCors(cors, { method: "GET", origin, requestMethod: undefined })).toEqual({ preflight: false, headers: {} });
    }
  });

  it("answers exactly the listed origins, without reflection, credentials only for them", async () => {
    const { cors } = await httpApiOf([ALLOWED]);
    const preflight = gatewayCors(cors, { method: "OPTIONS", origin: ALLOWED, requestMethod: "POST" });
    expect(preflight).toEqual({
      preflight: true,
      headers: {
        "access-control-allow-origin": ALLOWED,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "GET,POST,PUT,PATCH,DELETE",
        "access-control-allow-headers": "Content-Type,Authorization,If-Match,If-None-Match",
        "access-control-max-age": "600",
      },
    });
    expect(gatewayCors(cors, { method: "GET", origin: ALLOWED, requestMethod: undefined }).headers).toEqual({
      "access-control-allow-origin": ALLOWED,
      "access-control-allow-credentials": "true",
      "access-control-expose-headers": "ETag,Retry-After",
    });
    for (const origin of [FOREIGN, `${ALLOWED}.evil.example`, "https://APP.example", "null"]) {
      expect(gatewayCors(cors, { method: "OPTIONS", origin, requestMethod: "POST" })).toEqual({ preflight: true, headers: {} });
      expect(gatewayCors(cors, { method: "GET", origin, requestMethod: undefined })).toEqual({ preflight: false, headers: {} });
    }
  });
});

/** A Hapi server set up as serverless-offline 14.8.2 sets up its HTTP server, with the plugin installed. */
const calls = { count: 0 };

async function offlineLikeServer(cors: HttpApiCors | undefined, port: number) {
  const serverless = { service: { provider: { httpApi: cors ? { payload: "2.0", cors } : { payload: "2.0" } }, custom: {} }, classes: { Error } };
  const plugin = new OfflineCorsPlugin(serverless as unknown as Serverless, { httpPort: port });
  plugin.hooks["before:offline:start:init"]?.();
  const require = createRequire(createRequire(import.meta.url).resolve("serverless-offline"));
  const Hapi = require("@hapi/hapi") as { server: (o: object) => HapiServer };
  // Never started: inject() needs no socket.
  const server = Hapi.server({ port });
  // offline's own hook: reflect any Origin, with credentials (what the plugin must replace).
  server.ext("onPreResponse", (request, h) => {
    const response = request.response as { headers: Record<string, string> };
    response.headers["access-control-allow-origin"] = String(request.headers.origin);
    response.headers["access-control-allow-credentials"] = "true";
    return h.continue;
  });
  // offline's routes carry Hapi CORS too (`origin: *` on its 404 route).
  server.route({
    method: "*",
    path: "/{p*}",
    handler: () => {
      calls.count++;
      return { me: "alice" };
    },
    options: { cors: { origin: ["*"], credentials: true } },
  });
  plugin.hooks["offline:start:ready"]?.();
  return server;
}

interface HapiServer {
  ext(event: string, method: (request: { headers: Record<string, string>; response: unknown }, h: { continue: symbol }) => unknown): void;
  route(definition: object): void;
  inject(options: object): Promise<{ statusCode: number; headers: Record<string, unknown> }>;
}

const corsHeaders = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("access-control-")));

describe("serverless offline's HTTP server with the plugin", () => {
  it("sends no CORS header to a foreign Origin carrying a cookie, preflight or not, when nothing is configured", async () => {
    const server = await offlineLikeServer(undefined, 3000);
    const actual = await server.inject({ method: "GET", url: "/auth/me", headers: { origin: FOREIGN, cookie: "session=alice" } });
    expect(actual.statusCode).toBe(200);
    expect(corsHeaders(actual.headers)).toEqual({});
    const preflight = await server.inject({ method: "OPTIONS", url: "/graphql", headers: { origin: FOREIGN, "access-control-request-method": "GET" } });
    expect(corsHeaders(preflight.headers)).toEqual({});
  });

  it("answers as gatewayCors says when rest.corsOrigins lists origins", async () => {
    const { cors } = await httpApiOf([ALLOWED]);
    const server = await offlineLikeServer(cors, 3000);
    for (const origin of [ALLOWED, FOREIGN]) {
      const before = calls.count;
      const actual = await server.inject({ method: "GET", url: "/auth/me", headers: { origin } });
      expect(corsHeaders(actual.headers)).toEqual(gatewayCors(cors, { method: "GET", origin, requestMethod: undefined }).headers);
      const preflight = await server.inject({ method: "OPTIONS", url: "/auth/me", headers: { origin, "access-control-request-method": "GET" } });
      expect(preflight.statusCode).toBe(204);
      // The gateway answers a preflight itself: only the actual request reached the function.
      expect(calls.count).toBe(before + 1);
      expect(corsHeaders(preflight.headers)).toEqual(gatewayCors(cors, { method: "OPTIONS", origin, requestMethod: "GET" }).headers);
    }
  });
});
