// A local serverless plugin for `serverless offline` only: its HTTP server answers CORS as the
// deployed HTTP API does, from the same configuration (`provider.httpApi.cors`, which
// serverless.yml includes from schema-cache/http-api.json, rendered from `rest.corsOrigins`).
//
// serverless-offline 14.8.2 answers CORS itself in an `onPreResponse` hook: without
// `httpApi.cors` it reflects any Origin with `Access-Control-Allow-Credentials: true`; with it, it
// still reflects any Origin on actual (non-preflight) responses. Hapi's route-level CORS (offline
// gives its 404 route `origin: *`) adds more after that hook. So on the HTTP server only, offline's
// hook is replaced by `gatewayCors` below and route-level CORS is turned off. A deployed stage
// never loads this: API Gateway answers CORS there.
//
// Plain JS because the Serverless CLI loads plugins itself.
import { createRequire } from "node:module";

const DEFAULT_HTTP_PORT = 3000;
const PATCHED = Symbol.for("modelrest.offlineCors");
/** The HTTP server's port and CORS step of the running `serverless offline` (one per process). */
let active;

/**
 * The CORS part of API Gateway's answer (HTTP API) for one request, from the API's CORS
 * configuration (serverless `httpApi.cors` shape) or none. Without a configuration, no header, and
 * a preflight goes to the routes like any request. With one, API Gateway answers every preflight
 * itself (204); an Origin it lists (exactly) gets the headers, any other gets none.
 */
export function gatewayCors(cors, { method, origin, requestMethod }) {
  if (!cors || typeof cors !== "object") return { preflight: false, headers: {} };
  const preflight = String(method).toUpperCase() === "OPTIONS" && Boolean(requestMethod);
  const origins = cors.allowedOrigins ?? [];
  const any = origins.length === 1 && origins[0] === "*";
  if (!origin || (!any && !origins.includes(origin))) return { preflight, headers: {} };
  const headers = { "access-control-allow-origin": any && !cors.allowCredentials ? "*" : origin };
  if (cors.allowCredentials) headers["access-control-allow-credentials"] = "true";
  if (preflight) {
    if (cors.allowedMethods?.length) headers["access-control-allow-methods"] = cors.allowedMethods.join(",");
    if (cors.allowedHeaders?.length) headers["access-control-allow-headers"] = cors.allowedHeaders.join(",");
    if (cors.maxAge !== undefined) headers["access-control-max-age"] = String(cors.maxAge);
  } else if (cors.exposedResponseHeaders?.length) {
    headers["access-control-expose-headers"] = cors.exposedResponseHeaders.join(",");
  }
  return { preflight, headers };
}

function corsOf(cors, request) {
  return gatewayCors(cors, {
    method: request.method,
    origin: request.headers.origin,
    requestMethod: request.headers["access-control-request-method"],
  });
}

/** Hapi's `onRequest` step: a preflight the gateway answers itself never reaches a function. */
function gatewayPreflightStep(cors) {
  return (request, h) => (corsOf(cors, request).preflight ? h.response().code(204).takeover() : h.continue);
}

/** Hapi's `onPreResponse` step: whatever CORS headers a route or offline set, API Gateway's instead. */
function gatewayCorsStep(cors) {
  return (request, h) => {
    const { preflight, headers } = corsOf(cors, request);
    if (preflight) {
      const answer = h.response().code(204);
      for (const [name, value] of Object.entries(headers)) answer.header(name, value);
      return answer.takeover();
    }
    const response = request.response.isBoom ? request.response.output : request.response;
    for (const name of Object.keys(response.headers)) {
      if (name.toLowerCase().startsWith("access-control-")) delete response.headers[name];
    }
    Object.assign(response.headers, headers);
    return h.continue;
  };
}

export default class OfflineCorsPlugin {
  constructor(serverless, options = {}) {
    this.serverless = serverless;
    this.options = options;
    this.installed = false;
    this.hooks = {
      "before:offline:start:init": () => this.install(),
      "offline:start:ready": () => this.checkInstalled(),
    };
  }

  install() {
    const port = Number(this.options.httpPort ?? this.serverless.service.custom?.["serverless-offline"]?.httpPort ?? DEFAULT_HTTP_PORT);
    const cors = this.serverless.service.provider.httpApi?.cors;
    active = { port, step: gatewayCorsStep(cors), preflight: gatewayPreflightStep(cors), plugin: this };
    // Hapi as serverless-offline resolves it, so the patch reaches its servers.
    const require = createRequire(createRequire(import.meta.url).resolve("serverless-offline"));
    const Hapi = require("@hapi/hapi");
    const proto = Object.getPrototypeOf(Hapi.server({ autoListen: false }));
    if (proto[PATCHED]) return;
    proto[PATCHED] = true;
    const { ext, route } = proto;
    const isHttp = (server) => active !== undefined && Number(server.settings?.port) === active.port;
    proto.ext = function (event, method, extOptions) {
      if (isHttp(this) && event === "onPreResponse" && typeof method === "function") {
        active.plugin.installed = true;
        ext.call(this, "onRequest", active.preflight);
        return ext.call(this, event, active.step, extOptions);
      }
      return ext.call(this, event, method, extOptions);
    };
    proto.route = function (definitions) {
      if (!isHttp(this)) return route.call(this, definitions);
      const off = (d) => ({ ...d, options: { ...d.options, cors: false } });
      return route.call(this, Array.isArray(definitions) ? definitions.map(off) : off(definitions));
    };
  }

  /** Fails loudly when serverless-offline no longer registers the hook this plugin replaces. */
  checkInstalled() {
    if (!this.installed) {
      throw new this.serverless.classes.Error("lib/local/offline-cors.mjs: serverless-offline registered no onPreResponse hook to replace; offline CORS would differ from the deployed API's");
    }
  }
}
