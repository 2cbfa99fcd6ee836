import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { UnavailableError } from "../../lib/core/errors.ts";
import { currentInvocation, runInvocation } from "../../lib/core/invocation.ts";
import { ANSWER_RESERVE_MS } from "../../lib/core/invocation-deadline.ts";
import { beginInvocation } from "../../lib/core/invocation-lifecycle.ts";
import { clientBudget, DYNAMODB_BUDGET, dynamodbBudget } from "../../lib/store/aws-budgets.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { mapDynamoError } from "../../lib/store/dynamodb-errors.ts";
import { LOCAL_CREDENTIALS } from "../../lib/store/local-credentials.ts";

// A stalled endpoint: connections are accepted and requests read, never answered (a database
// whose process stopped, or a connection lost on the way).
let server: Server;
let endpoint = "";
const sockets: Socket[] = [];
let connections = 0;

// The deployed figures, not the longer attempts the test setup gives the shared DynamoDB Local.
const relaxed = process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
const relaxedConnection = process.env.DYNAMODB_CONNECTION_TIMEOUT_MS;

beforeAll(async () => {
  delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
  delete process.env.DYNAMODB_CONNECTION_TIMEOUT_MS;
  server = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.on("error", () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (relaxed !== undefined) process.env.DYNAMODB_REQUEST_TIMEOUT_MS = relaxed;
  if (relaxedConnection !== undefined) process.env.DYNAMODB_CONNECTION_TIMEOUT_MS = relaxedConnection;
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  connections = 0;
});

const client = (maxAttempts?: number) =>
  createDocumentClient(endpoint, { ...(maxAttempts === undefined ? {} : { maxAttempts }), region: "us-east-1", credentials: LOCAL_CREDENTIALS });
const get = (documents: ReturnType<typeof client>) => documents.send(new GetCommand({ TableName: "t", Key: { id: "a" } }));

describe("the AWS clients' HTTP handler against a stalled endpoint", () => {
  it(
    "times each attempt out and retries it on a new connection, a stalled call's attempts only, then fails as unavailable",
    async () => {
      const documents = client();
      try {
        const error = await get(documents).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ name: "TimeoutError" });
        // Fewer than the six a throttled call gets.
        expect(DYNAMODB_BUDGET.stalledAttempts).toBeLessThan(DYNAMODB_BUDGET.maxAttempts);
        expect((error as { $metadata?: { attempts?: number } }).$metadata?.attempts).toBe(DYNAMODB_BUDGET.stalledAttempts);
        // A timed-out socket is destroyed, never reused: each attempt opened its own connection.
        expect(connections).toBe(DYNAMODB_BUDGET.stalledAttempts);
        expect(mapDynamoError(error)).toBeInstanceOf(UnavailableError);
      } finally {
        documents.destroy();
      }
    },
    10 * DYNAMODB_BUDGET.requestTimeoutMs,
  );

  it(
    "takes a caller's maxAttempts for a stalled call too",
    async () => {
      const documents = client(1);
      try {
        await expect(get(documents)).rejects.toMatchObject({ name: "TimeoutError" });
        expect(connections).toBe(1);
      } finally {
        documents.destroy();
      }
    },
    10 * DYNAMODB_BUDGET.requestTimeoutMs,
  );

  it(
    "cuts an attempt at the invocation's deadline and starts none past it: unavailable, retry after",
    () =>
      runInvocation(async () => {
        const documents = client();
        // 200 ms to the deadline: shorter than one attempt's own timeout.
        beginInvocation(currentInvocation(), undefined, ANSWER_RESERVE_MS + 200);
        try {
          const error = await get(documents).then(
            () => undefined,
            (e: unknown) => e,
          );
          // The attempt's own timeout error, or the refusal to start one out of time: both unavailable.
          const answered = mapDynamoError(error);
          expect(answered).toBeInstanceOf(UnavailableError);
          expect((answered as UnavailableError).retryAfterSeconds).toBeGreaterThan(0);
          // One attempt cut short at the deadline; the SDK's retry found less than an attempt's worth
          // left (a last millisecond at most, timers being millisecond-grained) and stopped there,
          // with the attempt's own error, far from its six attempts.
          expect(connections).toBe(1);
          expect((answered as UnavailableError).message).toBe("The database did not answer in time, retry shortly");
        } finally {
          documents.destroy();
        }
      }),
    10 * DYNAMODB_BUDGET.requestTimeoutMs,
  );

  it("starts no attempt when the invocation is already out of time", () =>
    runInvocation(async () => {
      const documents = client();
      beginInvocation(currentInvocation(), undefined, ANSWER_RESERVE_MS - 100);
      try {
        await expect(get(documents)).rejects.toBeInstanceOf(UnavailableError);
        expect(connections).toBe(0);
      } finally {
        documents.destroy();
      }
    }));
});

describe("the AWS clients' retry strategy near the invocation's deadline", () => {
  // A stalled call's retry: the SDK's backoff is random (full jitter), drawn here.
  const retry = async (leftMs: number, random: number): Promise<unknown> =>
    runInvocation(async () => {
      beginInvocation(currentInvocation(), undefined, ANSWER_RESERVE_MS + leftMs);
      const draw = vi.spyOn(Math, "random").mockReturnValue(random);
      try {
        const strategy = clientBudget(DYNAMODB_BUDGET).retryStrategy;
        const token = await strategy.acquireInitialRetryToken("dynamodb");
        return await strategy.refreshRetryTokenForRetry(token, { errorType: "TRANSIENT" }).catch((error: unknown) => error);
      } finally {
        draw.mockRestore();
      }
    });

  it("retries when an attempt's worth of time is left after the backoff", async () => {
    expect(await retry(500, 0)).not.toBeInstanceOf(Error);
  });

  it("refuses a retry with less than an attempt's worth left, before its backoff (an attempt cut at the deadline)", async () => {
    expect(await retry(5, 0)).toMatchObject({ message: "No retry: the invocation is out of time" });
  });

  it("refuses a retry whose backoff left less than an attempt's worth: the call ends with its own error", async () => {
    // The first retry's backoff is up to the SDK's base delay (50 ms): 45 of the 30 left.
    expect(await retry(30, 0.9)).toMatchObject({ message: "No retry: the invocation is out of time after the backoff" });
  });
});

describe("DYNAMODB_REQUEST_TIMEOUT_MS", () => {
  it("replaces DynamoDB's request timeout when it is a whole number of milliseconds", () => {
    expect(dynamodbBudget({ DYNAMODB_REQUEST_TIMEOUT_MS: "5000" })).toEqual({ ...DYNAMODB_BUDGET, requestTimeoutMs: 5000 });
  });

  it("leaves the default when unset, empty or not a positive whole number", () => {
    for (const value of [undefined, "", "null", "0", "-1", "2.5", "3s", "NaN"]) {
      expect(dynamodbBudget(value === undefined ? {} : { DYNAMODB_REQUEST_TIMEOUT_MS: value })).toEqual(DYNAMODB_BUDGET);
      expect(dynamodbBudget(value === undefined ? {} : { DYNAMODB_CONNECTION_TIMEOUT_MS: value })).toEqual(DYNAMODB_BUDGET);
    }
  });

  it("takes DYNAMODB_CONNECTION_TIMEOUT_MS as the connection timeout, beside the request timeout", () => {
    expect(dynamodbBudget({ DYNAMODB_CONNECTION_TIMEOUT_MS: "8000" })).toEqual({ ...DYNAMODB_BUDGET, connectionTimeoutMs: 8000 });
    expect(dynamodbBudget({ DYNAMODB_CONNECTION_TIMEOUT_MS: "8000", DYNAMODB_REQUEST_TIMEOUT_MS: "9000" })).toEqual({
      ...DYNAMODB_BUDGET,
      connectionTimeoutMs: 8000,
      requestTimeoutMs: 9000,
    });
  });

  it(
    "is what a client built with it waits for an attempt",
    async () => {
      const documents = createDocumentClient(endpoint, { maxAttempts: 1, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
      process.env.DYNAMODB_REQUEST_TIMEOUT_MS = "300";
      const shorter = createDocumentClient(endpoint, { maxAttempts: 1, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
      delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
      try {
        // Raced against each other on the same stalled endpoint: the 300 ms attempt fails first.
        const order: string[] = [];
        await Promise.all([get(documents).catch(() => order.push("default")), get(shorter).catch(() => order.push("300 ms"))]);
        expect(order).toEqual(["300 ms", "default"]);
      } finally {
        documents.destroy();
        shorter.destroy();
      }
    },
    10 * DYNAMODB_BUDGET.requestTimeoutMs,
  );
});
