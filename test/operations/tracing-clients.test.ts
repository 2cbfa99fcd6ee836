import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SesTransport } from "../../lib/auth/mail/ses.ts";
import { ApiGatewayTransport } from "../../lib/realtime/transport.ts";

import { newTraceRoot, startOtlpReceiver, tracedInvocation, type ReceivedSpan } from "../support/otlp-receiver.ts";

/**
 * The WebSocket management API's (the fan-out's sends) and SES's calls are traced like DynamoDB's:
 * the framework's own transports, their real SDK clients, against a local HTTP server answering as
 * those APIs do, the spans exported to a real OTLP receiver on loopback.
 */

const ROOT = newTraceRoot();
const TRACE_ID = ROOT.slice(2).replace("-", "");
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let server: Server;
let endpoint = "";
/** What reached the stand-in API: path and headers of each request. */
const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
const envBefore = { TRACING: process.env.TRACING, _X_AMZN_TRACE_ID: process.env._X_AMZN_TRACE_ID, AWS_ENDPOINT_URL_SESV2: process.env.AWS_ENDPOINT_URL_SESV2 };

/** The client spans of the invocation whose Lambda segment is `parent`. */
function callsOf(parent: string): ReceivedSpan[] {
  const spans = receiver.spans().filter((s) => s.traceId === TRACE_ID);
  const invocation = spans.find((s) => s.parentSpanId === parent);
  return spans.filter((s) => invocation !== undefined && s.parentSpanId === invocation.spanId);
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.TRACING = "true";
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests.push({ url: request.url ?? "", headers: request.headers });
      const id = randomUUID();
      if (request.url?.startsWith("/@connections/gone-")) {
        response.writeHead(410, { "content-type": "application/json", "x-amzn-requestid": id, "x-amzn-errortype": "GoneException" }).end("{}");
      } else if (request.url?.startsWith("/@connections/")) {
        response.writeHead(200, { "x-amzn-requestid": id }).end();
      } else {
        response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": id }).end(JSON.stringify({ MessageId: "m-1" }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The SDK's own per-service endpoint setting: SesTransport builds its client with no options.
  process.env.AWS_ENDPOINT_URL_SESV2 = endpoint;
});

afterAll(async () => {
  await receiver.close();
  await new Promise((resolve) => server.close(resolve));
  for (const [name, value] of Object.entries(envBefore)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the WebSocket management API", () => {
  it("posts as a client span, and marks a gone connection as an error", async () => {
    const transport = new ApiGatewayTransport();
    const frame = `frame-${randomUUID()}`;
    requests.length = 0;
    const parent = await tracedInvocation(ROOT, async () => {
      await transport.post({ endpoint, connectionId: "live-1" }, frame);
      await expect(transport.post({ endpoint, connectionId: "gone-1" }, frame)).rejects.toMatchObject({ name: "GoneException" });
    });
    const calls = callsOf(parent);
    expect(calls).toHaveLength(2);
    expect(receiver.received.at(-1)?.body).not.toContain(frame);
    const [live, gone] = ["/@connections/live-1", "/@connections/gone-1"].map((url) => {
      const request = requests.find((r) => r.url === url);
      const span = calls.find((s) => request?.headers["x-amzn-trace-id"] === `Root=${ROOT};Parent=${s.spanId};Sampled=1`);
      if (!span) throw new Error(`no span named by the request to ${url}`);
      return span;
    });
    expect(live).toMatchObject({
      name: "ApiGatewayManagementApi.PostToConnection",
      status: { code: 0 },
      attributes: { "rpc.service": "ApiGatewayManagementApi", "rpc.method": "PostToConnection", "http.response.status_code": 200 },
    });
    expect(gone).toMatchObject({
      status: { code: 2 },
      attributes: { "rpc.method": "PostToConnection", "http.response.status_code": 410, "error.type": "GoneException" },
      events: [{ name: "exception", attributes: { "exception.type": "GoneException" } }],
    });
  });
});

describe("SES", () => {
  it("sends a mail as a client span that names no address, subject or body", async () => {
    const transport = new SesTransport("noreply@example.com");
    const mail = {
      to: `someone-${randomUUID()}@example.com`,
      subject: `subject-${randomUUID()}`,
      text: `text-${randomUUID()}`,
      html: `<p>html-${randomUUID()}</p>`,
    };
    const parent = await tracedInvocation(ROOT, () => transport.send(mail));
    const body = receiver.received.at(-1)?.body ?? "";
    for (const value of [mail.to, mail.subject, mail.text, "noreply@example.com"]) expect(body).not.toContain(value);
    expect(callsOf(parent)).toEqual([
      expect.objectContaining({
        name: "SESv2.SendEmail",
        attributes: expect.objectContaining({
          "rpc.service": "SESv2",
          "rpc.method": "SendEmail",
          "aws.request_id": expect.any(String),
          "http.response.status_code": 200,
        }),
      }),
    ]);
  });
});
