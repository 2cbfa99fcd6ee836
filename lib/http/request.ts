import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from "aws-lambda";

export type ApiGatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/**
 * One request shape for every face, whichever API Gateway payload (REST API v1, HTTP API v2)
 * carried it. Header names are lower-cased; cookies come from `cookies` (v2) or the header (v1).
 */
export interface HttpRequest {
  method: string;
  /** The path as the client sent it, without stage prefix, still percent-encoded. */
  path: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  cookies: string[];
  /** The raw body text (base64 payloads decoded), undefined when there is none. */
  body: string | undefined;
  requestId: string;
  /** API Gateway's route key: `GET /posts/{slug}`, or `$default` for the catch-all. */
  routeKey: string;
  sourceIp: string | undefined;
  payloadVersion: "1.0" | "2.0";
}

function isV2(event: ApiGatewayEvent): event is APIGatewayProxyEventV2 {
  return (event as { version?: string }).version === "2.0" || "rawPath" in event;
}

function lowerCase(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

function decodeBody(body: unknown, base64: boolean): string | undefined {
  if (body === null || body === undefined) return undefined;
  // serverless-offline hands a JSON body of `false` or a number over as that value, not as text.
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return base64 ? Buffer.from(text, "base64").toString("utf8") : text;
}

/** v1 events carry the stage in the path when called on the default endpoint; the resource does not. */
function stripStage(path: string, stage: string | undefined): string {
  if (!stage || stage === "$default") return path;
  const prefix = `/${stage}`;
  return path === prefix ? "/" : path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

export function fromApiGateway(event: ApiGatewayEvent): HttpRequest {
  if (isV2(event)) {
    const headers = lowerCase(event.headers);
    const query: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(event.rawQueryString ?? "")) query[name] ??= value;
    return {
      method: event.requestContext.http.method.toUpperCase(),
      path: stripStage(event.rawPath, event.requestContext.stage),
      headers,
      query,
      cookies: event.cookies ?? [],
      body: decodeBody(event.body, event.isBase64Encoded),
      requestId: event.requestContext.requestId,
      routeKey: event.routeKey ?? event.requestContext.routeKey,
      sourceIp: event.requestContext.http.sourceIp,
      payloadVersion: "2.0",
    };
  }
  const headers = lowerCase(event.headers);
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  return {
    method: event.httpMethod.toUpperCase(),
    path: stripStage(event.path, event.requestContext.stage),
    headers,
    query,
    cookies: headers.cookie ? headers.cookie.split(/;\s*/) : [],
    body: decodeBody(event.body, event.isBase64Encoded),
    requestId: event.requestContext.requestId,
    routeKey: event.resource === "/{proxy+}" ? "$default" : `${event.httpMethod.toUpperCase()} ${event.resource}`,
    sourceIp: event.requestContext.identity?.sourceIp,
    payloadVersion: "1.0",
  };
}
