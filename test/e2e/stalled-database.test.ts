import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { OFFLINE_PORTS } from "../../lib/local/offline.ts";
import { descendantsOf } from "../../lib/local/processes.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { waitFor } from "../support/wait.ts";

// docs/operating.md, "Time budgets": DynamoDB Local stopped (SIGSTOP) as a stalled database is,
// its connections accepted by the kernel and never answered.
const STALL_MS = 15_000;

let offline: Offline | undefined;
let base = "";
let javaPid: number | undefined;
/** The endpoint npm start gave its functions ("DynamoDB Local on ..."): the one the JVM above must serve. */
let endpoint = "";
const ALICE = randomUUID();
const slug = `stall-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  offline = await startOffline();
  base = offline.url;
  // Ours only: other DynamoDB Locals (other test runs) may run on the same machine.
  javaPid = descendantsOf(offline.pid).find((p) => /DynamoDBLocal/.test(p.args))?.pid;
  endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1] ?? "";
}, 400_000);

let client: Client | undefined;

afterAll(async () => {
  client?.dispose();
  // Never leave it stopped, whatever failed.
  if (javaPid !== undefined) {
    try {
      process.kill(javaPid, "SIGCONT");
    } catch {
      // already gone
    }
  }
  await offline?.stop();
}, 60_000);

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
  /** Whether DynamoDB Local had been resumed when the answer arrived. */
  afterResume: boolean;
}

let resumed = false;

async function send(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: text ? (JSON.parse(text) as unknown) : undefined,
    afterResume: resumed,
  };
}

const readPost = () => send(`/posts/${slug}`);
const queryPost = () =>
  send("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query: "query($slug: String!) { Post(slug: $slug) { slug title } }", variables: { slug } }),
  });

/** Linux's process state letter from /proc: "T" once a SIGSTOP has taken hold. */
function processState(pid: number): string {
  return /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1] ?? "?";
}

async function waitUntilStopped(pid: number): Promise<void> {
  for (let tries = 0; processState(pid) !== "T"; tries++) {
    if (tries > 100) throw new Error(`pid ${pid} still in state ${processState(pid)} after SIGSTOP`);
    await sleep(20);
  }
}

async function answersWithin(url: string, ms: number): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(ms) });
    return true;
  } catch {
    return false;
  }
}

interface Feed {
  data: unknown[];
  errors: unknown[];
  /** Whether DynamoDB Local had been resumed when each error arrived. */
  errorsAfterResume: boolean[];
}

/** A graphql-ws subscription of the real client, its messages kept. */
function subscribe(over: Client, query: string): Feed {
  const feed: Feed = { data: [], errors: [], errorsAfterResume: [] };
  over.subscribe<Record<string, unknown>>(
    { query },
    {
      next: (value) => feed.data.push(value.data),
      error: (error) => {
        feed.errors.push(error);
        feed.errorsAfterResume.push(resumed);
      },
      complete: () => undefined,
    },
  );
  return feed;
}

// Stream delivery offline takes about a second; a loaded 2-core machine may take far longer.
const DELIVERY_MS = 60_000;

describe("a stalled database under npm start", () => {
  it("answers 503 with Retry-After while DynamoDB Local is stopped, and recovers by itself once it resumes", async () => {
    expect(javaPid, `DynamoDB Local's process below npm start (${offline?.pid})`).toBeTypeOf("number");
    expect(endpoint, "npm start names its DynamoDB Local endpoint").toMatch(/^http:/);
    const created = await send("/posts", {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-user": ALICE },
      body: JSON.stringify({ slug, title: `Title ${slug}`, content: "Body", status: "published", viewCount: 1 }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // Both functions warm (their workers started), so what follows measures the calls, not a cold start.
    expect((await readPost()).status).toBe(200);
    expect(await queryPost()).toMatchObject({ status: 200, body: { data: { Post: { slug } } } });

    // A graphql-ws client (the real one) with a live subscription: seen to deliver before the stall.
    const closes: { code: number; reason: string }[] = [];
    const protocolErrors: unknown[] = [];
    let n = 0;
    client = createClient({
      url: `ws://127.0.0.1:${OFFLINE_PORTS.websocket}`,
      webSocketImpl: WebSocket,
      connectionParams: { testUser: ALICE },
      retryAttempts: 0,
      lazy: true,
      generateID: () => `stall-${++n}`,
      on: {
        closed: (event) => void closes.push(event as { code: number; reason: string }),
        // A non-protocol message (API Gateway's `{"message": ...}`) surfaces here, and closes the socket with 4400.
        error: (error) => void protocolErrors.push(error),
      },
    });
    const watched = subscribe(client, `subscription { Post(slug: "${slug}") { slug title } }`);
    const retitle = (title: string) =>
      send(`/posts/${slug}`, { method: "PATCH", headers: { "content-type": "application/json", "x-test-user": ALICE }, body: JSON.stringify({ slug, title }) });
    // graphql-ws does not acknowledge a subscribe: the write is repeated (every 3 s) until one arrives.
    let probes = 0;
    await waitFor(
      async () => {
        if (probes++ % 30 === 0) expect((await retitle("Before the stall")).status).toBe(200);
        return watched.data.length;
      },
      (seen) => seen > 0,
      "the live subscription's first delivery",
      DELIVERY_MS,
    );
    let failedSubscribe: Feed | undefined;

    process.kill(javaPid as number, "SIGSTOP");
    let answers: Answer[];
    try {
      // The stall is real before anything is asked of it: the JVM stopped, and the endpoint the
      // functions use no longer answering (were it served by another process, this says so).
      await waitUntilStopped(javaPid as number);
      expect(await answersWithin(endpoint, 2_000), `${endpoint} answered while pid ${javaPid} was stopped`).toBe(false);
      const stall = sleep(STALL_MS);
      // A subscribe on the same socket, whose reads stall: answered over the protocol.
      failedSubscribe = subscribe(client, `subscription { Posts(query: "status = 'published'") { type key } }`);
      answers = await Promise.all([readPost(), queryPost()]);
      await stall;
    } finally {
      resumed = true;
      process.kill(javaPid as number, "SIGCONT");
    }

    const [read, query] = answers;
    // Answered while the database was still stopped: out of the SDK's attempts, not out of Lambda's time.
    expect(read).toMatchObject({ status: 503, afterResume: false, body: { code: 503 } });
    expect(Number(read?.retryAfter)).toBeGreaterThan(0);
    expect(query?.afterResume).toBe(false);
    expect(query?.status).not.toBe(500);
    expect(query?.body).toMatchObject({ errors: [{ extensions: { code: "UNAVAILABLE" } }] });

    // The subscribe that stalled got a graphql-ws `error` for its id while the database was still
    // stopped; the socket was neither closed nor sent a message without a type.
    expect(failedSubscribe?.errors).toEqual([[expect.objectContaining({ extensions: { code: "UNAVAILABLE" } })]]);
    expect(failedSubscribe?.errorsAfterResume).toEqual([false]);
    expect(protocolErrors).toEqual([]);
    expect(closes).toEqual([]);

    // Recovery: no restart, no reconnection by hand; the next requests are answered in full.
    expect(await readPost()).toMatchObject({ status: 200, body: { slug } });
    expect(await queryPost()).toMatchObject({ status: 200, body: { data: { Post: { slug } } } });
    // And the socket's other subscription delivers the next change.
    expect((await retitle("After the stall")).status).toBe(200);
    await waitFor(
      () => watched.data,
      (data) => JSON.stringify(data).includes("After the stall"),
      "the live subscription's delivery after the stall",
      DELIVERY_MS,
    );
    expect(closes).toEqual([]);
  }, 240_000);
});
