import type { APIGatewayProxyResult, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HttpRequest } from "./request.ts";

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
  cookies?: string[];
  /** The body is base64 of binary content (a compressed asset); API Gateway decodes it. */
  isBase64Encoded?: boolean;
}

export function json(statusCode: number, value: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: JSON.stringify(value ?? null) };
}

export function empty(statusCode: number, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers };
}

/** Answers in the payload format the request came in (v2 carries cookies apart; v1 as headers). */
export function toApiGateway(response: HttpResponse, request: Pick<HttpRequest, "payloadVersion">): APIGatewayProxyResult | APIGatewayProxyStructuredResultV2 {
  if (request.payloadVersion === "2.0") {
    return {
      statusCode: response.statusCode,
      headers: response.headers,
      body: response.body ?? "",
      ...(response.isBase64Encoded ? { isBase64Encoded: true } : {}),
      ...(response.cookies && response.cookies.length > 0 ? { cookies: response.cookies } : {}),
    };
  }
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    ...(response.cookies && response.cookies.length > 0 ? { multiValueHeaders: { "set-cookie": response.cookies } } : {}),
    body: response.body ?? "",
    ...(response.isBase64Encoded ? { isBase64Encoded: true } : {}),
  };
}
