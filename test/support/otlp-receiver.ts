import type { Context } from "aws-lambda";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { invocationHandler } from "../../lib/core/invocation-handler.ts";
import type { Outcome } from "../../lib/core/invocation-lifecycle.ts";

/** One span as the receiver read it from an OTLP/HTTP JSON request, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
}

export interface ReceivedExport {
  headers: IncomingHttpHeaders;
  body: string;
  spans: ReceivedSpan[];
}

type KeyValue = { key: string; value: Record<string, unknown> };

function plain(value: Record<string, unknown>): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("arrayValue" in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(plain);
  throw new Error(`an attribute value OTLP does not define: ${JSON.stringify(value)}`);
}

const attributes = (list: KeyValue[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/** Reads an ExportTraceServiceRequest in OTLP's JSON mapping; throws on one that is not. */
export function spansOf(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans: {
      resource: { attributes: KeyValue[] };
      scopeSpans: {
        scope: { name: string };
        spans: (Omit<ReceivedSpan, "attributes" | "events" | "resource"> & { attributes: KeyValue[]; events: { name: string; attributes: KeyValue[] }[] })[];
      }[];
    }[];
  };
  return request.resourceSpans.flatMap((r) =>
    r.scopeSpans.flatMap((s) =>
      s.spans.map((span) => ({
        ...span,
        attributes: attributes(span.attributes),
        events: span.events.map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
        resource: attributes(r.resource.attributes),
      })),
    ),
  );
}

/** A trace id as X-Ray makes them: version 1, epoch seconds in hex, 96 random bits. */
export const newTraceRoot = (): string => `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;

/**
 * A real OTLP/HTTP receiver on loopback, named in `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as the
 * exporter reads it (lib/core/tracing/export.ts), standing in for X-Ray's OTLP endpoint: it keeps
 * every request (headers, body, spans) and answers 200 as X-Ray does, or `status` when set.
 */
export async function startOtlpReceiver() {
  const received: ReceivedExport[] = [];
  const answer = { status: 200 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: request.headers, body, spans: request.url === "/v1/traces" ? spansOf(body) : [] });
      response.writeHead(answer.status, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const before = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return {
    received,
    answer,
    /** Every span received so far, of every export. */
    spans: (): ReceivedSpan[] => received.flatMap((r) => r.spans),
    async close(): Promise<void> {
      await new Promise((resolve) => server.close(resolve));
      if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = before;
    },
  };
}

/**
 * Runs `work` as one Lambda invocation through invocationHandler (what every function is made
 * with), under a sampled trace header of its own (a new parent, as Lambda's function segment), and
 * returns that header's parent id. The handler awaits the export, so once this resolves the
 * receiver has the invocation's spans, or never will.
 */
export async function tracedInvocation(root: string, work: () => Promise<unknown>, outcome: Outcome = {}, sampled = true): Promise<string> {
  const parent = randomBytes(8).toString("hex");
  process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=${sampled ? 1 : 0}`;
  const handler = invocationHandler<unknown, Outcome>({ service: "test", timeoutEarlyInMillis: 0, outcome: (_, response) => response ?? outcome }, async () => {
    await work();
    return outcome;
  });
  await handler({}, { awsRequestId: `request-${parent}` } as Context);
  return parent;
}
