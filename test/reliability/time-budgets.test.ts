import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { Context as LambdaContext } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANSWER_RESERVE_MS, timeLeftMs } from "../../lib/core/invocation-deadline.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { DYNAMODB_BUDGET } from "../../lib/store/aws-budgets.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { LOCAL_CREDENTIALS } from "../../lib/store/local-credentials.ts";
import { blog } from "../support/blog.ts";
import { httpEvent } from "../support/http-events.ts";

// The handlers in front of a database that accepts connections and never answers: what Lambda
// says is left, not the clients' own timeouts, decides when the request is answered.
let server: Server;
const sockets: Socket[] = [];
let documents: ReturnType<typeof createDocumentClient>;

// The deployed figures, not the longer attempts the test setup gives the shared DynamoDB Local.
const relaxed = process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
const relaxedConnection = process.env.DYNAMODB_CONNECTION_TIMEOUT_MS;

beforeAll(async () => {
  delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
  delete process.env.DYNAMODB_CONNECTION_TIMEOUT_MS;
  server = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  documents = createDocumentClient(endpoint, { region: "us-east-1", credentials: LOCAL_CREDENTIALS });
});

afterAll(async () => {
  if (relaxed !== undefined) process.env.DYNAMODB_REQUEST_TIMEOUT_MS = relaxed;
  if (relaxedConnection !== undefined) process.env.DYNAMODB_CONNECTION_TIMEOUT_MS = relaxedConnection;
  documents.destroy();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Less time left than one DynamoDB attempt's own timeout: only the invocation's deadline can end it.
const REMAINING_MS = ANSWER_RESERVE_MS + 700;

function shortLived(): LambdaContext {
  const ends = Date.now() + REMAINING_MS;
  return { awsRequestId: "budget-test", functionName: "test", getRemainingTimeInMillis: () => ends - Date.now() } as unknown as LambdaContext;
}

interface Answer {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
}

describe("a request whose invocation runs out of time on a stalled database", () => {
  const app = () => blog((name, table) => new DynamoRepository(documents, tableName("budget-", name), table));

  it("the REST handler answers 503 with Retry-After in our error format, through the database's deadline", async () => {
    expect(REMAINING_MS - ANSWER_RESERVE_MS).toBeLessThan(DYNAMODB_BUDGET.requestTimeoutMs);
    const handler = restHandler(app());
    const answer = (await handler(httpEvent("GET", "/posts/stalled", { routeKey: "GET /posts/{slug}" }), shortLived())) as Answer;
    expect(answer.statusCode).toBe(503);
    expect(Number(answer.headers?.["retry-after"])).toBeGreaterThan(0);
    // The database call was cut at the deadline (its error mapped), before the handler's own
    // last-resort timeout would have answered with its "ran out of time" message.
    expect(JSON.parse(answer.body ?? "")).toEqual({ code: 503, message: "The database did not answer in time, retry shortly" });
    // The invocation has left: no deadline lingers for the process's next one.
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
  });

  it("the GraphQL handler answers the field with extensions.code UNAVAILABLE", async () => {
    const handler = graphqlHandler(app());
    const event = httpEvent("POST", "/graphql", { body: { query: '{ Post(slug: "stalled") { slug } }' }, headers: { accept: "application/json" } });
    const answer = (await handler(event, shortLived())) as Answer;
    expect(answer.statusCode).not.toBe(500);
    expect(JSON.parse(answer.body ?? "")).toMatchObject({ errors: [{ extensions: { code: "UNAVAILABLE" } }] });
    expect(timeLeftMs()).toBe(Number.POSITIVE_INFINITY);
  });
});
