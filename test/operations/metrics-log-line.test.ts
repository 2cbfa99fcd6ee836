import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { restHandler } from "../../lib/rest/handler.ts";
import { ALICE, as, blog, model, post } from "../support/blog.ts";
import { parseEmf, stdoutLinesOf } from "../support/emf.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { withEnvironment } from "../support/offline-env.ts";

// As a deployed stage logs by default (logLevel info, JSON lines, metrics to stdout): the tests
// elsewhere log at warn, where the metrics take a line of their own. Set before the handler is
// built (it reads them as it is built), put back after the file.
withEnvironment({ LOG_LEVEL: "info", METRICS_FILE: "" });

const app = blog();
let rest: ReturnType<typeof restHandler>;
beforeAll(() => {
  rest = restHandler(app);
});

describe("the request log line carries the invocation's metrics (Lambda, info level)", () => {
  it("writes one line per request: the access-log fields and a valid EMF document, each id once", async () => {
    const slug = `one-${randomUUID().slice(0, 8)}`;
    await app.domain.create(as(ALICE), model(app, "Post"), post(slug));
    const lines = await stdoutLinesOf(() => call(rest, httpEvent("GET", `/posts/${slug}`, { routeKey: "GET /posts/{slug}" })));
    expect(lines).toHaveLength(1);
    const line = lines[0] as string;
    const parsed = parseEmf(line);
    expect(parsed).toMatchObject({
      level: "info",
      message: "request",
      status: 200,
      route: "GET /posts/{slug}",
      Service: "rest",
      Route: "GET /posts/{slug}",
      StatusClass: "2xx",
      Requests: 1,
    });
    expect(parsed.Latency).toBe(parsed.durationMs);
    expect(line.match(/"requestId":/g)).toHaveLength(1);
    expect(line.match(/"status":/g)).toHaveLength(1);
    expect(line.endsWith("}\n")).toBe(true);
  });

  it("an error answer's line carries them too, under its status class", async () => {
    const lines = await stdoutLinesOf(() => call(rest, httpEvent("GET", `/posts/absent-${randomUUID()}`, { routeKey: "GET /posts/{slug}" })));
    expect(lines).toHaveLength(1);
    expect(parseEmf(lines[0] as string)).toMatchObject({ message: "request", status: 404, StatusClass: "4xx", Requests: 1 });
  });
});
