import { randomUUID } from "node:crypto";
import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { AuthenticationService } from "../../lib/auth/index.ts";
import { websocketHandler, type WebSocketEvent } from "../../lib/realtime/handler.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { definition } from "../fixtures/blog/index.ts";
import { idpLogin } from "../auth/support.ts";
import { FakeTransport, memoryRepositories, realtimeFor } from "./support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * Cross-site WebSocket hijacking. A page on another origin opens a socket to
 * the API; the browser attaches Alice's session cookie to the handshake. The cookie must count
 * only from an allowed Origin (the API's own, or `rest.corsOrigins`), as for HTTP cookie writes;
 * from any other the connection is anonymous. An access token in `connection_init` needs no Origin.
 */

const WS_HOST = "abc123.execute-api.eu-west-1.amazonaws.com";
const ALLOWED = "https://app.example";
const EVIL = "http://evil.example";

async function scene() {
  const app = new Application({ ...definition, rest: { ...definition.rest, corsOrigins: [ALLOWED] } }, inProcess).useStore(dynamoStore());
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  const transport = new FakeTransport();
  const realtime = realtimeFor(app, transport, memoryRepositories());
  app.events.on("*", async (event) => {
    await realtime.fanout.deliver(event);
  });
  const handler = websocketHandler(async () => realtime);
  const alice = await idpLogin(auth);
  const cookie = (alice.setCookie as string).split(";")[0] as string;
  const aliceId = alice.user.uuid as string;
  const slug = `draft-${randomUUID().slice(0, 8)}`;
  const Post = app.model("Post");
  if (!Post) throw new Error("no Post");
  await app.domain.create(new Context({ userId: aliceId }), Post, { slug, title: "t", content: "first", status: "draft", viewCount: 0 });
  const secret = `secret-${randomUUID()}`;

  /** Opens a socket with these handshake headers and init payload, subscribes to the draft; what does it receive once Alice edits it? */
  async function open(headers: Record<string, string>, payload?: Record<string, unknown>) {
    const connectionId = `c-${randomUUID().slice(0, 8)}`;
    const base = { connectionId, connectedAt: Date.now(), requestTimeEpoch: Date.now(), domainName: WS_HOST, stage: "prod", apiId: "abc123" };
    const frame = (routeKey: string, body?: unknown) =>
      handler({ requestContext: { ...base, routeKey }, ...(body ? { body: JSON.stringify(body) } : {}) } as WebSocketEvent);
    const connect = await handler({
      requestContext: { ...base, routeKey: "$connect" },
      headers: { Host: WS_HOST, "Sec-WebSocket-Protocol": "graphql-transport-ws", ...headers },
    });
    const row = await realtime.store.getConnection(connectionId);
    await frame("$default", { type: MessageType.ConnectionInit, ...(payload ? { payload } : {}) });
    await frame("$default", { id: "s1", type: MessageType.Subscribe, payload: { query: `subscription { Post(slug: "${slug}") { slug content } }` } });
    return { connect, row, messages: () => transport.messages(connectionId) };
  }
  const edit = () => app.domain.patch(new Context({ userId: aliceId }), Post, { slug }, { content: secret });
  return { open, edit, cookie, aliceId, secret, accessToken: alice.access_token };
}

describe("a WebSocket handshake authenticated by the session cookie checks Origin", () => {
  it("makes the connection anonymous when the Origin is foreign or missing: Alice's draft is not delivered", async () => {
    const s = await scene();
    const evil = await s.open({ Cookie: s.cookie, Origin: EVIL });
    const bare = await s.open({ Cookie: s.cookie });
    const sibling = await s.open({ Cookie: s.cookie, Origin: `https://evil.${WS_HOST}` });
    // A sandboxed frame or a redirected page sends `Origin: null`; its Referer may name our own page.
    const opaque = await s.open({ Cookie: s.cookie, Origin: "null", Referer: `https://${WS_HOST}/app` });
    await s.edit();
    for (const socket of [evil, bare, sibling, opaque]) {
      // Acknowledged as anonymous (not refused): a page elsewhere may still bring an access token.
      expect(socket.connect.statusCode).toBe(200);
      expect(socket.row?.userId).toBeUndefined();
      expect(socket.messages()[0]).toEqual({ type: MessageType.ConnectionAck });
      expect(JSON.stringify(socket.messages())).not.toContain(s.secret);
    }
  });

  it("counts the cookie from the API's own origin and from rest.corsOrigins", async () => {
    const s = await scene();
    const own = await s.open({ Cookie: s.cookie, Origin: `https://${WS_HOST}` });
    const listed = await s.open({ Cookie: s.cookie, Origin: ALLOWED });
    await s.edit();
    for (const socket of [own, listed]) {
      expect(socket.row?.userId).toBe(s.aliceId);
      expect(socket.messages().filter((m) => m.type === MessageType.Next)).toEqual([
        { id: "s1", type: MessageType.Next, payload: { data: { Post: expect.objectContaining({ content: s.secret }) } } },
      ]);
    }
  });

  it("keeps an access token in connection_init Origin-free", async () => {
    const s = await scene();
    const bearer = await s.open({ Origin: EVIL, Cookie: s.cookie }, { Authorization: `Bearer ${s.accessToken}` });
    await s.edit();
    expect(JSON.stringify(bearer.messages())).toContain(s.secret);
  });
});
