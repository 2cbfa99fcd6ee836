import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SesTransport } from "../../lib/auth/mail/ses.ts";
import { ApiGatewayTransport } from "../../lib/realtime/transport.ts";
import { newTraceRoot, parsePacket, startXrayDaemon } from "../support/xray-daemon.ts";

/**
 * The WebSocket management API's and SES's calls are traced like DynamoDB's: the framework's own
 * transports, their real SDK clients, against a local HTTP server answering as those APIs do.
 */

const ROOT = newTraceRoot();
let daemon: Awaited<ReturnType<typeof startXrayDaemon>>;
let server: Server;
let endpoint = "";
/** What reached the stand-in API: path and headers of each request. */
const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
const envBefore = { TRACING: process.env.TRACING, _X_AMZN_TRACE_ID: process.env._X_AMZN_TRACE_ID, AWS_ENDPOINT_URL_SESV2: process.env.AWS_ENDPOINT_URL_SESV2 };

beforeAll(async () => {
  daemon = await startXrayDaemon(ROOT);
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
  daemon.close();
  await new Promise((resolve) => server.close(resolve));
  for (const [name, value] of Object.entries(envBefore)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("the WebSocket management API", () => {
  it("posts as a subsegment, and marks a gone connection as a client error", async () => {
    const transport = new ApiGatewayTransport();
    const frame = `frame-${randomUUID()}`;
    requests.length = 0;
    const packets = await daemon.invocation(2, async () => {
      await transport.post({ endpoint, connectionId: "live-1" }, frame);
      await expect(transport.post({ endpoint, connectionId: "gone-1" }, frame)).rejects.toMatchObject({ name: "GoneException" });
    });
    expect(packets).toHaveLength(2);
    for (const packet of packets) expect(packet).not.toContain(frame);
    const [live, gone] = ["/@connections/live-1", "/@connections/gone-1"].map((url) => {
      const request = requests.find((r) => r.url === url);
      const segment = packets.map(parsePacket).find((s) => request?.headers["x-amzn-trace-id"] === `Root=${ROOT};Parent=${s.id};Sampled=1`);
      if (!segment) throw new Error(`no subsegment named by the request to ${url}`);
      return segment;
    });
    expect(live).toMatchObject({
      name: "ApiGatewayManagementApi",
      namespace: "aws",
      aws: { operation: "PostToConnection" },
      http: { response: { status: 200 } },
    });
    expect(live?.error).toBeUndefined();
    expect(gone).toMatchObject({
      error: true,
      aws: { operation: "PostToConnection" },
      http: { response: { status: 410 } },
      cause: { exceptions: [{ type: "GoneException" }] },
    });
  });
});

describe("SES", () => {
  it("sends a mail as a subsegment that names no address, subject or body", async () => {
    const transport = new SesTransport("noreply@example.com");
    const mail = {
      to: `someone-${randomUUID()}@example.com`,
      subject: `subject-${randomUUID()}`,
      text: `text-${randomUUID()}`,
      html: `<p>html-${randomUUID()}</p>`,
    };
    const [packet] = await daemon.invocation(1, () => transport.send(mail));
    for (const value of [mail.to, mail.subject, mail.text, "noreply@example.com"]) expect(packet).not.toContain(value);
    expect(parsePacket(packet)).toMatchObject({
      name: "SESv2",
      namespace: "aws",
      aws: { operation: "SendEmail", request_id: expect.any(String) },
      http: { response: { status: 200 } },
    });
  });
});
