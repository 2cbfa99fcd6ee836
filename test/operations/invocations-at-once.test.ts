import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { log } from "../../lib/core/log.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { parseEmf, stdoutLinesOf } from "../support/emf.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";
import { withEnvironment } from "../support/offline-env.ts";
import { ownDynamoStore } from "../support/own-client.ts";

// As a deployed stage logs (info, JSON lines, the metrics riding on the request line): each
// request's line is then the whole record of its invocation. Set before the handlers are built
// (each reads it as it is built), put back after the file.
withEnvironment({ LOG_LEVEL: "info", METRICS_FILE: "" });

/**
 * Holds the first DynamoDB call of each of `parties` requests until all of them have one in flight:
 * the requests then surely run at once, each with a call under way while the other counts its own.
 */
let barrier: { parties: number; arrived: number; open: () => void; opened: Promise<void> } | undefined;
let client: DynamoDBDocumentClient;
let app: Application;
let rest: ReturnType<typeof restHandler>;

beforeAll(() => {
  // Over a client of this file's own: the barrier goes with it.
  const own = ownDynamoStore();
  client = own.client;
  client.middlewareStack.add(
    (next) => async (args) => {
      const held = barrier;
      if (held !== undefined && held.arrived < held.parties) {
        held.arrived++;
        if (held.arrived === held.parties) held.open();
        await held.opened;
      }
      return next(args);
    },
    { step: "initialize", name: "testBarrier" },
  );
  app = blog(own.store);
  rest = restHandler(app);
});
afterAll(() => client.destroy());

function holdUntil(parties: number): void {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  barrier = { parties, arrived: 0, open, opened };
}

type Line = Record<string, unknown>;

/** Each request's own line (the one with its message "request"), with the id it was served under. */
async function served(requests: { id: string; event: APIGatewayProxyEventV2 }[]): Promise<Map<string, Line>> {
  const lines = await stdoutLinesOf(() => Promise.all(requests.map(({ id, event }) => rest(event, { ...lambdaContext(), awsRequestId: id } as Context))));
  const parsed = lines.map((l) => JSON.parse(l) as Line);
  return new Map(parsed.filter((l) => l.message === "request").map((l) => [l.requestId as string, l]));
}

const read = (slug: string): APIGatewayProxyEventV2 => httpEvent("GET", `/posts/${slug}`, { routeKey: "GET /posts/{slug}" });
const list = (): APIGatewayProxyEventV2 => httpEvent("PUT", "/posts", { body: { limit: 5 }, routeKey: "PUT /posts" });

describe("two invocations served at once in one process", () => {
  it("each request line carries its own request id, DynamoDB tally and metrics", async () => {
    const slug = `both-${randomUUID().slice(0, 8)}`;
    await app.domain.create(as(ALICE), model(app, "Post"), post(slug));
    await app.domain.create(as(ALICE), model(app, "Post"), post(`${slug}-2`));

    // Alone first: what each request costs by itself.
    const alone = await served([{ id: "alone-read", event: read(slug) }]);
    const aloneList = await served([{ id: "alone-list", event: list() }]);
    const readCalls = alone.get("alone-read")?.dynamodbCalls as number;
    const listCalls = aloneList.get("alone-list")?.dynamodbCalls as number;
    expect(readCalls).toBeGreaterThan(0);
    expect(aloneList.get("alone-list")).toMatchObject({ status: 200 });
    expect(listCalls).toBeGreaterThan(0);

    // Then together, several times over (which of them goes first varies), both in flight at once.
    for (let round = 0; round < 3; round++) {
      holdUntil(2);
      const ids = { read: `read-${round}`, list: `list-${round}` };
      const lines = await served(
        round % 2 === 0
          ? [
              { id: ids.read, event: read(slug) },
              { id: ids.list, event: list() },
            ]
          : [
              { id: ids.list, event: list() },
              { id: ids.read, event: read(slug) },
            ],
      );
      expect(barrier?.arrived).toBe(2);
      expect([...lines.keys()].sort()).toEqual([ids.list, ids.read]);
      const ofRead = parseEmf(JSON.stringify(lines.get(ids.read)));
      const ofList = parseEmf(JSON.stringify(lines.get(ids.list)));
      expect(ofRead).toMatchObject({ route: "GET /posts/{slug}", Route: "GET /posts/{slug}", status: 200, dynamodbCalls: readCalls, DynamoDBCalls: readCalls });
      expect(ofList).toMatchObject({ route: "PUT /posts", Route: "PUT /posts", status: 200, dynamodbCalls: listCalls, DynamoDBCalls: listCalls });
      expect(ofRead.Latency).toBe(ofRead.durationMs);
      expect(ofList.Latency).toBe(ofList.durationMs);
    }
    barrier = undefined;
  });

  it("each line a request writes between its awaits carries that request's id", async () => {
    const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const echo = httpHandler("test", async (request) => {
      for (let i = 0; i < 3; i++) {
        await tick();
        log.info("inside", { step: i, path: request.path });
      }
      return { statusCode: 204, headers: {}, body: undefined };
    });
    const lines = await stdoutLinesOf(() =>
      Promise.all(
        ["a", "b", "c"].map((id) => echo(httpEvent("GET", `/${id}`, { routeKey: "GET /{id}" }), { ...lambdaContext(), awsRequestId: id } as Context)),
      ),
    );
    const inside = lines.map((l) => JSON.parse(l) as Line).filter((l) => l.message === "inside");
    expect(inside).toHaveLength(9);
    // Interleaved (each step of each request in turn), and each line under its own request's id.
    expect(inside.slice(0, 3).map((l) => l.path)).toEqual(["/a", "/b", "/c"]);
    for (const line of inside) expect(`/${line.requestId as string}`).toBe(line.path);
  });
});
