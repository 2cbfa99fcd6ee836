import type { APIGatewayProxyEventV2, Context as LambdaContext } from "aws-lambda";
import { randomUUID } from "node:crypto";

/** An HTTP API (payload 2.0) event as API Gateway builds it, for in-process handler tests. */
export function httpEvent(
  method: string,
  rawPath: string,
  options: { body?: unknown; headers?: Record<string, string>; routeKey?: string; rawBody?: string } = {},
): APIGatewayProxyEventV2 {
  const [path, query = ""] = rawPath.split("?") as [string, string?];
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return {
    version: "2.0",
    routeKey: options.routeKey ?? "$default",
    rawPath: path,
    rawQueryString: query,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "api",
      domainName: "example.com",
      domainPrefix: "example",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "test" },
      requestId: randomUUID(),
      routeKey: options.routeKey ?? "$default",
      stage: "$default",
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
    ...(body !== undefined ? { body } : {}),
  };
}

export function lambdaContext(): LambdaContext {
  return { awsRequestId: randomUUID(), functionName: "test", getRemainingTimeInMillis: () => 10_000 } as unknown as LambdaContext;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: unknown;
}

type Handler = (event: APIGatewayProxyEventV2, context: LambdaContext) => Promise<unknown>;

export async function call(handler: Handler, event: APIGatewayProxyEventV2): Promise<Answer> {
  const result = (await handler(event, lambdaContext())) as { statusCode: number; headers?: Record<string, string>; body?: string };
  return { statusCode: result.statusCode, headers: result.headers ?? {}, body: result.body ? (JSON.parse(result.body) as unknown) : undefined };
}
