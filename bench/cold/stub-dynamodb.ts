import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A DynamoDB endpoint on loopback that answers every data-plane call with an empty result, so a
 * cold start with the DynamoDB store configured (client built, request sent, response parsed)
 * needs no table and no network: GetItem finds nothing, Query/Scan return an empty page.
 */
const ANSWERS: Record<string, unknown> = {
  GetItem: {},
  Query: { Items: [], Count: 0, ScannedCount: 0 },
  Scan: { Items: [], Count: 0, ScannedCount: 0 },
  BatchGetItem: { Responses: {}, UnprocessedKeys: {} },
  ExecuteStatement: { Items: [] },
};

export interface StubDynamoDb {
  endpoint: string;
  /** Calls answered, by operation. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startStubDynamoDb(): Promise<StubDynamoDb> {
  const calls = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const operation =
        String(request.headers["x-amz-target"] ?? "")
          .split(".")
          .pop() ?? "";
      calls.set(operation, (calls.get(operation) ?? 0) + 1);
      const answer = ANSWERS[operation];
      response.writeHead(answer ? 200 : 400, { "content-type": "application/x-amz-json-1.0" });
      response.end(JSON.stringify(answer ?? { __type: "com.amazon.coral.validate#ValidationException", message: `stub: ${operation} not answered` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
