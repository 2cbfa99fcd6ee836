// @ts-check
// A local serverless plugin for `serverless offline` only: its HTTP server answers CORS as the
// deployed HTTP API does, from the same configuration (`provider.httpApi.cors`, which
// serverless.yml includes from schema-cache/http-api.json, rendered from `rest.corsOrigins`).
//
// serverless-offline 14.8.2 answers CORS itself in an `onPreResponse` hook: without
// `httpApi.cors` it reflects any Origin with `Access-Control-Allow-Credentials: true`; with it, it
// still reflects any Origin on actual (non-preflight) responses. Hapi's route-level CORS (offline
// gives its 404 route `origin: *`) adds more after that hook. So on the HTTP server only, offline's
// hook is replaced by `gatewayCors` below and route-level CORS is turned off (the patch itself:
// offline-patches.mjs). A deployed stage never loads this: API Gateway answers CORS there.
//
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { replaceOfflineCors } from "./offline-patches.mjs";
/** @import { Serverless, ServerlessOptions, ServerlessPlugin } from "../core/serverless-host.ts" */
/** @import { HapiLifecycleMethod, HapiRequest } from "./offline-patches.mjs" */

/**
 * The serverless `httpApi.cors` shape (what schema-cache/http-api.json holds).
 * @typedef {object} HttpApiCors
 * @property {string[]} [allowedOrigins]
 * @property {string[]} [allowedHeaders]
 * @property {string[]} [allowedMethods]
 * @property {string[]} [exposedResponseHeaders]
 * @property {boolean} [allowCredentials]
 * @property {number} [maxAge]
 */
/**
 * @typedef {object} CorsRequest
 * @property {string} method
 * @property {string | undefined} origin
 * @property {string | undefined} requestMethod the `Access-Control-Request-Method` header: present on a preflight
 */

const DEFAULT_HTTP_PORT = 3000;

/**
 * The CORS part of API Gateway's answer (HTTP API) for one request, from the API's CORS
 * configuration (serverless `httpApi.cors` shape) or none. Without a configuration, no header, and
 * a preflight goes to the routes like any request. With one, API Gateway answers every preflight
 * itself (204); an Origin it lists (exactly) gets the headers, any other gets none.
 * @param {HttpApiCors | undefined} cors
 * @param {CorsRequest} request
 * @returns {{ preflight: boolean, headers: Record<string, string> }}
 */
export function gatewayCors(cors, { method, origin, requestMethod }) {
  if (!cors || typeof cors !== "object") return { preflight: false, headers: {} };
  const preflight = String(method).toUpperCase() === "OPTIONS" && Boolean(requestMethod);
  const origins = cors.allowedOrigins ?? [];
  const any = origins.length === 1 && origins[0] === "*";
  if (!origin || (!any && !origins.includes(origin))) return { preflight, headers: {} };
  /** @type {Record<string, string>} */
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

/**
 * @param {HttpApiCors | undefined} cors
 * @param {HapiRequest} request
 */
function corsOf(cors, request) {
  return gatewayCors(cors, {
    method: request.method,
    origin: request.headers.origin,
    requestMethod: request.headers["access-control-request-method"],
  });
}

/**
 * Hapi's `onRequest` step: a preflight the gateway answers itself never reaches a function.
 * @param {HttpApiCors | undefined} cors
 * @returns {HapiLifecycleMethod}
 */
function gatewayPreflightStep(cors) {
  return (request, h) => (corsOf(cors, request).preflight ? h.response().code(204).takeover() : h.continue);
}

/**
 * Hapi's `onPreResponse` step: whatever CORS headers a route or offline set, API Gateway's instead.
 * @param {HttpApiCors | undefined} cors
 * @returns {HapiLifecycleMethod}
 */
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

/** @implements {ServerlessPlugin} */
export default class OfflineCorsPlugin {
  /**
   * @param {Serverless} serverless
   * @param {ServerlessOptions} [options]
   */
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
    const cors = /** @type {HttpApiCors | undefined} */ (this.serverless.service.provider.httpApi?.cors);
    replaceOfflineCors({
      port,
      onRequest: gatewayPreflightStep(cors),
      onPreResponse: gatewayCorsStep(cors),
      replaced: () => {
        this.installed = true;
      },
    });
  }

  /** Fails loudly when serverless-offline no longer registers the hook this plugin replaces. */
  checkInstalled() {
    if (!this.installed) {
      throw new this.serverless.classes.Error(
        "lib/local/offline-cors.mjs: serverless-offline registered no onPreResponse hook to replace; offline CORS would differ from the deployed API's",
      );
    }
  }
}
