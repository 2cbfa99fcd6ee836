import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2, Context as LambdaContext } from "aws-lambda";
import { httpEvent, lambdaContext } from "../support/http-events.ts";

type Handler = (event: APIGatewayProxyEventV2, context: LambdaContext) => Promise<unknown>;

/** Serves Lambda handlers over a local HTTP port, routed by path prefix, for browser tests. */
export async function serveHandlers(routes: [prefix: string, handler: Handler][]): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "/";
        const route = routes.find(([prefix]) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`));
        if (!route) {
          res.writeHead(404).end();
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])));
        const body = chunks.length > 0 ? Buffer.concat(chunks).toString("utf8") : undefined;
        const event = httpEvent(req.method ?? "GET", url, { headers, ...(body !== undefined ? { rawBody: body } : {}) });
        const result = (await route[1](event, lambdaContext())) as {
          statusCode: number;
          headers?: Record<string, string>;
          body?: string;
          isBase64Encoded?: boolean;
        };
        // As API Gateway does: a base64 body (compressed assets) goes out as its bytes.
        res.writeHead(result.statusCode, result.headers ?? {}).end(result.isBase64Encoded ? Buffer.from(result.body ?? "", "base64") : (result.body ?? ""));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
