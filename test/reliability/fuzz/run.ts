import fc from "fast-check";
import WebSocket from "ws";
import { runScheduled } from "./schedule.ts";
import { MARKER, type FuzzRequest, type GraphqlRequest, type RestRequest, type WsSession } from "./inputs.ts";
import { graphqlWrites, restWrite, type AcceptedWrite } from "./writes.ts";

/** One answer the oracle refused, kept with what caused it. */
export interface Finding {
  cls: string;
  problem: string;
  request: string;
  status: number;
  body: string;
}

export interface Tally {
  sent: number;
  byClass: Record<string, number>;
  status5xx: number;
  errorBodies: number;
  errorBodiesInShape: number;
  /** Every write the service accepted: method, the key it named, its answer (writes.ts). */
  accepted: AcceptedWrite[];
  /** Answers the local emulator (serverless-offline's hapi server, Node's HTTP parser) gave itself. */
  emulator: number;
  /** Requests sent again once because the server closed a kept-alive connection as they went out. */
  resent: number;
  findings: Finding[];
  /** Per class: requests (sessions for WebSocket), their summed and longest time to answer. */
  timing: Record<string, { n: number; totalMs: number; maxMs: number }>;
}

const excerpt = (text: string, n = 300): string => (text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text);

function describeRequest(r: FuzzRequest): string {
  const credential =
    r.kind !== "ws" && r.refuseUser !== undefined ? ` [${excerpt(r.headers?.authorization ?? "", 120)} | ${excerpt(r.headers?.cookie ?? "", 120)}]` : "";
  if (r.kind === "rest")
    return `${r.method} ${excerpt(r.path, 120)} ${r.body === undefined ? "" : excerpt(typeof r.body === "string" ? r.body : `<${r.body.length} bytes>`, 200)}${credential}`;
  if (r.kind === "graphql") return `POST /graphql ${excerpt(r.body, 200)}${credential}`;
  return `ws ${excerpt(JSON.stringify(r.frames), 300)}`;
}

function restShape(status: number, text: string, auth = false): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "error body is not JSON";
  }
  const b = body as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof b !== "object" || b === null) return "error body is not an object";
  if (b.code !== status) return `code ${String(b.code)} is not the status ${status}`;
  if (typeof b.message !== "string" || b.message === "") return "no message";
  if (
    b.errors !== undefined &&
    !(Array.isArray(b.errors) && b.errors.every((e: { path?: unknown; message?: unknown }) => typeof e.path === "string" && typeof e.message === "string"))
  ) {
    return "errors[] not [{path, message}]";
  }
  // The auth routes add `reason` (README, "Authentication": the table of reasons).
  if (auth && (b as { reason?: unknown }).reason !== undefined && typeof (b as { reason?: unknown }).reason !== "string") return "reason is not a string";
  const extra = Object.keys(b).filter((k) => !["code", "message", "errors", "requestId", ...(auth ? ["reason"] : [])].includes(k));
  if (extra.length > 0) return `unexpected keys ${extra.join(",")}`;
  return undefined;
}

function graphqlShape(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return "GraphQL answer is not JSON";
  }
  const list = Array.isArray(body) ? body : [body];
  for (const b of list as { errors?: unknown }[]) {
    if (b?.errors === undefined) continue;
    if (!Array.isArray(b.errors) || b.errors.length === 0) return "errors is not a non-empty list";
    for (const e of b.errors as { message?: unknown; extensions?: { code?: unknown } }[]) {
      if (typeof e.message !== "string") return "an error without message";
      if (typeof e.extensions?.code !== "string") return "an error without extensions.code";
      if (e.extensions.code === "INTERNAL_SERVER_ERROR") return "INTERNAL_SERVER_ERROR";
    }
  }
  return undefined;
}

/** hapi's own error shape: serverless offline refused the request (a method, a content type, a cookie header) before any handler ran. */
const answeredByEmulator = (text: string): boolean => /^\{"statusCode":\d+,"error":/.test(text);

const STACK = /\bat [\w.<>]+ \(|node:internal|\.ts:\d+:\d+|\.mjs:\d+:\d+/;

async function sendRest(base: string, r: RestRequest, cls: string, t: Tally): Promise<void> {
  const response = await fetch(`${base}${r.path}`, {
    method: r.method,
    headers: r.headers,
    ...(r.body !== undefined && !["GET", "HEAD"].includes(r.method) ? { body: typeof r.body === "string" ? r.body : new Blob([Buffer.from(r.body)]) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  // Answered before any handler of ours ran: hapi's own error shape, or Node refusing a URL and
  // headers over its 16 KB limit. API Gateway has limits of its own there; not what this suite judges.
  const headerBytes = Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, r.path.length);
  if (answeredByEmulator(text) || (headerBytes > 8192 && !text.startsWith("{"))) {
    t.emulator++;
    return;
  }
  if (r.method === "HEAD") {
    if (response.status >= 500) judgeHttp(cls, describeRequest(r), response, "", "rest", t, r.path);
    return;
  }
  // The random-path class also reaches GET /graphql, which answers in GraphQL's shape: judged by
  // the path fetch sent, as the URL parser resolved it (`/%2e%2e/graphql/x/..` is `/graphql/`).
  const sent = new URL(`${base}${r.path}`);
  judgeHttp(cls, describeRequest(r), response, text, /^\/graphql\/?$/.test(sent.pathname) ? "graphql" : "rest", t, r.path);
  if (r.refuseUser !== undefined && (text.includes(r.refuseUser) || (response.status < 300 && r.method !== "GET"))) {
    t.findings.push({ cls, problem: "an invalid credential was accepted", request: describeRequest(r), status: response.status, body: excerpt(text) });
  }
  const write = restWrite(r.method, sent.pathname, response.status, text);
  if (write) t.accepted.push(write);
}

async function sendGraphql(base: string, r: GraphqlRequest, cls: string, t: Tally): Promise<void> {
  const response = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: r.headers ?? { "content-type": "application/json" },
    body: r.body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (answeredByEmulator(text)) {
    t.emulator++;
    return;
  }
  judgeHttp(cls, describeRequest(r), response, text, "graphql", t);
  if (r.refuseUser !== undefined && (text.includes(r.refuseUser) || /"data":\{"\w+":\{/.test(text))) {
    t.findings.push({ cls, problem: "an invalid credential was accepted", request: describeRequest(r), status: response.status, body: excerpt(text) });
  }
  t.accepted.push(...graphqlWrites(response.status, text));
}

function judgeHttp(cls: string, request: string, response: Response, text: string, face: "rest" | "graphql", t: Tally, path = ""): void {
  const status = response.status;
  const find = (problem: string) => t.findings.push({ cls, problem, request, status, body: excerpt(text) });
  if (status >= 500) {
    t.status5xx++;
    find(`status ${status}`);
  }
  if (STACK.test(text)) find("stack trace in the answer");
  // Error messages may quote the client's own input (GraphQL's variable coercion does); a success
  // that carries the value means a polluting key got stored.
  if (text.includes(MARKER) && status < 300 && !hasErrorsList(text)) find("a polluting key's value came back");
  const isError = status >= 400 || (face === "graphql" && text.includes('"errors"'));
  if (!isError) return;
  t.errorBodies++;
  const problem = face === "graphql" && hasErrorsList(text) ? graphqlShape(text) : restShape(status, text, path.startsWith("/auth/"));
  if (problem) find(`error body: ${problem}`);
  else t.errorBodiesInShape++;
  if (status === 405 && !response.headers.get("allow")) find("405 without Allow");
}

function hasErrorsList(text: string): boolean {
  try {
    const body = JSON.parse(text) as unknown;
    return (Array.isArray(body) ? body : [body]).some((b) => typeof b === "object" && b !== null && "errors" in b);
  } catch {
    return false;
  }
}

const KNOWN_WS = new Set(["connection_ack", "ping", "pong", "next", "error", "complete"]);

/** One connection: every frame sent, every answer checked, until the server closes or goes quiet. */
async function sendWs(wsUrl: string, r: WsSession, cls: string, t: Tally): Promise<void> {
  const socket = new WebSocket(wsUrl, "graphql-transport-ws", { headers: { "x-test-user": "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0affff" } });
  const answers: string[] = [];
  let closed = false;
  socket.on("message", (data) => answers.push(data.toString()));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => undefined);
  for (const frame of r.frames) {
    if (closed) break;
    socket.send(frame);
    t.sent++;
    t.byClass[cls] = (t.byClass[cls] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // Quiet for 300 ms, or closed: the answers to these frames are in.
  let seen = -1;
  while (!closed && seen !== answers.length) {
    seen = answers.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  socket.terminate();
  for (const text of answers) {
    const request = describeRequest(r);
    let message: { type?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      t.findings.push({ cls, problem: "a WebSocket answer is not JSON", request, status: 0, body: excerpt(text) });
      continue;
    }
    if (!KNOWN_WS.has(String(message.type)))
      t.findings.push({ cls, problem: `unknown message type ${String(message.type)}`, request, status: 0, body: excerpt(text) });
    if (STACK.test(text)) t.findings.push({ cls, problem: "stack trace in a WebSocket answer", request, status: 0, body: excerpt(text) });
    if (message.type === "error") {
      t.errorBodies++;
      const ok =
        Array.isArray(message.payload) &&
        message.payload.every(
          (e: { message?: unknown; extensions?: { code?: unknown } }) =>
            typeof e.message === "string" && typeof e.extensions?.code === "string" && e.extensions.code !== "INTERNAL_SERVER_ERROR",
        );
      if (ok) t.errorBodiesInShape++;
      else t.findings.push({ cls, problem: "WebSocket error payload not [{message, extensions.code}]", request, status: 0, body: excerpt(text) });
    }
  }
}

/**
 * The function serverless offline would run a request in, near enough to bound the instances
 * each one starts: REST by method, collection and item depth; GraphQL and WebSocket one each.
 */
function target(request: FuzzRequest): string {
  if (request.kind !== "rest") return request.kind;
  const segments = request.path.split("?")[0]?.split("/").filter(Boolean) ?? [];
  return `${request.method} ${segments[0] ?? ""} ${Math.min(segments.length, 3)}`;
}

/**
 * Samples each class's arbitrary with one seed and sends everything: HTTP requests `concurrency`
 * at a time (at most `perTarget` to one function), WebSocket sessions `sessions` at a time beside
 * them (a session mostly waits for answers, so it does not take an HTTP slot).
 */
export async function runFuzz(options: {
  base: string;
  wsUrl: string;
  seed: number;
  classes: { cls: string; weight: number; arbitrary: fc.Arbitrary<FuzzRequest> }[];
  total: number;
  concurrency: number;
  perTarget: number;
  sessions: number;
  onProgress?: (tally: Tally) => void;
}): Promise<Tally> {
  const t: Tally = {
    sent: 0,
    byClass: {},
    status5xx: 0,
    errorBodies: 0,
    errorBodiesInShape: 0,
    accepted: [],
    emulator: 0,
    resent: 0,
    findings: [],
    timing: {},
  };
  const weights = options.classes.reduce((s, c) => s + c.weight, 0);
  type Item = { cls: string; request: FuzzRequest };
  const work: Item[] = [];
  for (const [i, c] of options.classes.entries()) {
    const count = Math.max(1, Math.round((options.total * c.weight) / weights));
    for (const request of fc.sample(c.arbitrary, { numRuns: count, seed: options.seed + i })) work.push({ cls: c.cls, request });
  }
  // Interleaved, so classes run side by side as real traffic would.
  work.sort((a, b) => hash(describeRequest(a.request)) - hash(describeRequest(b.request)));
  let lastReport = Date.now();
  const send = async ({ cls, request }: Item): Promise<void> => {
    const began = performance.now();
    try {
      if (request.kind === "ws") await sendWs(options.wsUrl, request, cls, t);
      else {
        t.sent++;
        t.byClass[cls] = (t.byClass[cls] ?? 0) + 1;
        const http = () => (request.kind === "rest" ? sendRest(options.base, request, cls, t) : sendGraphql(options.base, request, cls, t));
        await http().catch(async (error: unknown) => {
          // A kept-alive connection the server closed just as the request went out: no handler saw
          // it. Sent once more on a fresh connection, and counted; anything else is a finding.
          if (!closedUnderfoot(error)) throw error;
          t.resent++;
          await http();
        });
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      t.findings.push({
        cls,
        problem: `no answer: ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ""}`,
        request: describeRequest(request),
        status: 0,
        body: "",
      });
    }
    const ms = performance.now() - began;
    const timing = (t.timing[cls] ??= { n: 0, totalMs: 0, maxMs: 0 });
    timing.n++;
    timing.totalMs += ms;
    timing.maxMs = Math.max(timing.maxMs, ms);
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      options.onProgress?.(t);
    }
  };
  await Promise.all([
    runScheduled({
      items: work.filter((w) => w.request.kind !== "ws"),
      target: (w) => target(w.request),
      concurrency: options.concurrency,
      perTarget: options.perTarget,
      run: send,
    }),
    runScheduled({
      items: work.filter((w) => w.request.kind === "ws"),
      target: () => "ws",
      concurrency: options.sessions,
      perTarget: options.sessions,
      run: send,
    }),
  ]);
  return t;
}

function closedUnderfoot(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === "UND_ERR_SOCKET" || code === "ECONNRESET";
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < Math.min(text.length, 200); i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
