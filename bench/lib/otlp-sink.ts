import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpSink {
  /** `http://127.0.0.1:<port>/v1/traces`, as OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names it. */
  endpoint: string;
  /** Spans received so far (counted, not parsed into objects). */
  received(): number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server standing where X-Ray's OTLP endpoint is: it takes each export, counts its
 * spans and answers 200 as X-Ray does, so a traced function pays the round trip it pays in Lambda
 * (in the same region, a few milliseconds more than here).
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  let count = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // Each span has exactly one spanId field in OTLP's JSON mapping.
      count += Buffer.concat(chunks).toString("utf8").split('"spanId":').length - 1;
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    received: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
