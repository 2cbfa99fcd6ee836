import { execute, getOperationAST, subscribe, type DocumentNode, type GraphQLError, type GraphQLSchema } from "graphql";
import { processRequest, type FormatPayloadParams } from "graphql-helix";
import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import { DomainError } from "../core/errors.ts";
import { countEvent } from "../core/metrics.ts";
import { isPlainObject } from "../core/sanitize.ts";
import { readJsonBody } from "../http/body.ts";
import { resolveIdentity } from "../http/identity.ts";
import type { HttpRequest } from "../http/request.ts";
import type { HttpResponse } from "../http/response.ts";
import { graphqlContext, type GraphQLContext } from "./context.ts";
import { DocumentCache } from "./documents.ts";
import { formatError } from "./errors.ts";
import { GRAPHIQL_PATH } from "./graphiql-paths.ts";
import { GRAPHQL_RESPONSE, JSON_MEDIA, negotiate, wantsHtml } from "./media.ts";
import type { GraphQLOptions } from "./service.ts";
import { boundedAnswer } from "./response-size.ts";

/** The codes of an operation refused by the abuse limits (lib/graphql/limits.ts, documents.ts). */
const LIMIT_CODES = new Set(["QUERY_TOO_DEEP", "TOO_MANY_ALIASES", "TOO_MANY_ROOT_FIELDS", "QUERY_TOO_COSTLY", "TOO_MANY_TOKENS"]);

interface Params {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

type Media = NonNullable<ReturnType<typeof negotiate>>;

const CONTENT_TYPES: Record<Media, string> = { [JSON_MEDIA]: `${JSON_MEDIA}; charset=utf-8`, [GRAPHQL_RESPONSE]: `${GRAPHQL_RESPONSE}; charset=utf-8` };

/** Every answer varies by Accept: the media type was negotiated from it. */
function answer(status: number, media: Media, body: unknown, headers?: Record<string, string>): HttpResponse {
  const all: Record<string, string> = { "content-type": CONTENT_TYPES[media], vary: "accept" };
  if (headers) Object.assign(all, headers);
  return { statusCode: status, headers: all, body: boundedAnswer(JSON.stringify(body)) };
}

/**
 * Negotiated media types by Accept header: a client sends the same header with every request, and
 * parsing it was a visible part of a warm one. Bounded, and only short headers are kept.
 */
const negotiated = new Map<string, Media | undefined>();
const NEGOTIATED_MAX = 64;

function mediaFor(accept: string | undefined): Media | undefined {
  if (accept === undefined || accept.length > 256) return negotiate(accept);
  if (negotiated.has(accept)) return negotiated.get(accept);
  const media = negotiate(accept);
  if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
  negotiated.set(accept, media);
  return media;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new RequestError(400, "BAD_REQUEST", `'${name}' must be a string`);
  return value;
}

function variablesOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new RequestError(400, "BAD_REQUEST", "'variables' must be a JSON object");
  return value;
}

function jsonParameter(text: string | undefined, name: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    throw new RequestError(400, "BAD_REQUEST", `'${name}' is not valid JSON`);
  }
}

/**
 * `extensions` carries nothing we read, but GraphQL-over-HTTP says it is a map: anything else is
 * a malformed request (400), as a non-object `variables` is.
 */
function checkExtensions(value: unknown): void {
  if (value !== undefined && value !== null && !isPlainObject(value)) throw new RequestError(400, "BAD_REQUEST", "'extensions' must be a JSON object");
}

/** `{query, variables, operationName}` from a POST body (JSON) or GET query parameters. */
function paramsOf(request: HttpRequest): Params {
  let raw: Record<string, unknown>;
  if (request.method === "GET") {
    const variables = jsonParameter(request.query.variables, "variables");
    checkExtensions(jsonParameter(request.query.extensions, "extensions"));
    raw = { query: request.query.query, variables, operationName: request.query.operationName };
  } else {
    const body = readJsonBody(request);
    if (!isPlainObject(body)) throw new RequestError(400, "BAD_REQUEST", "The body must be a JSON object with a 'query' string");
    raw = body;
    checkExtensions(raw.extensions);
  }
  const query = optionalString(raw.query, "query");
  if (!query) throw new RequestError(400, "BAD_REQUEST", "Provide the GraphQL document in 'query'");
  const variables = variablesOf(raw.variables);
  const operationName = optionalString(raw.operationName, "operationName");
  return { query, ...(variables ? { variables } : {}), ...(operationName ? { operationName } : {}) };
}

/**
 * The GraphQL endpoint over HTTP (GraphQL-over-HTTP): POST with JSON, GET for queries only,
 * application/graphql-response+json when accepted (4xx for request errors) else application/json
 * (200 for every well-formed request). Execution goes through graphql-helix with our cached
 * parse/validate, resolvers calling the domain.
 */
export class GraphQLEndpoint {
  readonly documents: DocumentCache;

  constructor(
    private readonly app: Application,
    readonly schema: GraphQLSchema,
    private readonly options: GraphQLOptions,
  ) {
    this.documents = new DocumentCache(schema, options.limits, { introspection: options.introspection, size: options.documentCacheSize });
  }

  async handle(request: HttpRequest): Promise<HttpResponse> {
    if (request.method === "GET" && this.options.exposeGraphiQL && wantsHtml(request.headers.accept)) {
      const search = new URLSearchParams(request.query).toString();
      return { statusCode: 302, headers: { location: `${GRAPHIQL_PATH}${search ? `?${search}` : ""}`, vary: "accept" }, body: "" };
    }
    const media = mediaFor(request.headers.accept);
    try {
      if (request.method !== "GET" && request.method !== "POST") throw new RequestError(405, "METHOD_NOT_ALLOWED", "Use GET or POST", { allow: "GET, POST" });
      if (!media) throw new RequestError(406, "NOT_ACCEPTABLE", "Accept application/graphql-response+json or application/json");
      return await this.execute(request, paramsOf(request), media);
    } catch (error) {
      const replyMedia = media ?? JSON_MEDIA;
      if (error instanceof RequestError)
        return answer(error.status, replyMedia, { errors: [{ message: error.message, extensions: { code: error.code } }] }, error.headers);
      if (error instanceof DomainError) {
        const extensions = { code: error.code, ...(error.errors.length > 0 ? { errors: error.errors } : {}) };
        // A throttle or an unavailable database (the caller's identity read first): when to retry.
        const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
        return answer(
          error.status,
          replyMedia,
          { errors: [{ message: error.message, extensions }] },
          typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : undefined,
        );
      }
      throw error;
    }
  }

  /**
   * One path for every request: the operation checked (cached parse and validation, which
   * operation), the caller identified, then graphql-helix runs it. A check that needs the
   * request's variables (as well as the document) belongs in `checkOperation`.
   */
  private async execute(request: HttpRequest, params: Params, media: Media): Promise<HttpResponse> {
    const requestId = request.requestId;
    const checked = this.checkOperation(params, request.method);
    const { userId } = await resolveIdentity(this.app, request);
    const ctx = new Context({ requestId, ...(userId ? { userId } : {}) });
    const result = await processRequest<GraphQLContext, unknown>({
      schema: this.schema,
      // The parsed document when it parsed (helix then skips parsing); else the text, so that
      // helix reports the syntax error through our parse.
      query: checked ?? params.query,
      ...(params.variables ? { variables: params.variables } : {}),
      ...(params.operationName ? { operationName: params.operationName } : {}),
      // Our own negotiation decides the media type; helix only has to give one JSON result.
      request: { method: request.method, headers: { accept: JSON_MEDIA }, body: {}, query: {} },
      // graphql's own functions, never helix's copy: under loaders that give helix graphql's CommonJS
      // build and us its ESM build, the schema would otherwise come "from another realm".
      execute,
      subscribe,
      parse: this.documents.parse,
      validate: this.documents.forRequest(params.variables),
      contextFactory: () => graphqlContext(this.app, ctx),
      formatPayload: ({ payload }: FormatPayloadParams<GraphQLContext, unknown>) => ({
        ...payload,
        ...(payload.errors ? { errors: payload.errors.map((e: GraphQLError) => formatError(e, requestId)) } : {}),
      }),
    });
    if (result.type !== "RESPONSE") throw new RequestError(400, "OPERATION_NOT_SUPPORTED", "Streamed results (@defer, @stream) are not supported");
    const payload = result.payload;
    const allow = result.headers.find((h) => h.name.toLowerCase() === "allow");
    if (result.status === 405) return answer(405, media, payload, allow ? { allow: allow.value } : {});
    // A request error (nothing executed) has no `data`: 4xx in the modern media type, 200 in the legacy one.
    const executed = "data" in payload;
    if (!executed && payload.errors?.some((e) => LIMIT_CODES.has(String(e.extensions?.code)))) countEvent("GraphQLRefused");
    const status = executed || media === JSON_MEDIA ? 200 : result.status >= 400 ? result.status : 400;
    return answer(status, media, payload);
  }

  /**
   * For a valid document (both steps cached), refusals that depend on which operation runs:
   * none chosen, a mutation over GET (405, GraphQL-over-HTTP), a subscription over HTTP. The
   * parsed document, or undefined when it does not parse; syntax and validation errors are left
   * to helix, which reports them through the same cached parse and validate.
   */
  private checkOperation(params: Params, method: string): DocumentNode | undefined {
    let document: DocumentNode;
    try {
      document = this.documents.parse(params.query);
    } catch {
      return undefined;
    }
    if (this.documents.forRequest(params.variables)(this.schema, document).length > 0) return document;
    const operation = getOperationAST(document, params.operationName);
    if (!operation) throw new RequestError(400, "BAD_REQUEST", "Name the operation to run in 'operationName'");
    if (operation.operation === "mutation" && method === "GET") throw new RequestError(405, "METHOD_NOT_ALLOWED", "Mutations need POST", { allow: "POST" });
    if (operation.operation === "subscription")
      throw new RequestError(400, "OPERATION_NOT_SUPPORTED", "Subscriptions are served over the WebSocket endpoint, not HTTP");
    return document;
  }
}
