import { MessageType } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { Context } from "../../lib/core/context.ts";
import { createRealtime } from "../../lib/realtime/realtime.ts";
import { DEFAULT_REALTIME_OPTIONS } from "../../lib/realtime/options.ts";
import { ENDPOINT, FakeTransport, memoryRepositories } from "../realtime/support.ts";
import { authApp, idpLogin } from "./support.ts";

/** A connection authenticated by an access token in connection_init, subscribed to one post. */
async function watcher(now: { value: number }) {
  const { app, auth } = authApp();
  const transport = new FakeTransport();
  const realtime = createRealtime(app, { repositories: memoryRepositories(), transport, options: DEFAULT_REALTIME_OPTIONS, now: () => now.value });
  app.events.on("*", async (event) => {
    await realtime.fanout.deliver(event);
  });
  const login = await idpLogin(auth);
  const user = login.user.uuid as string;
  const slug = `ws-${user.slice(0, 8)}`;
  const connectionId = `c-${user.slice(0, 8)}`;
  await realtime.protocol.connect({
    connectionId,
    endpoint: ENDPOINT,
    connectedAt: now.value,
    headers: { "sec-websocket-protocol": "graphql-transport-ws" },
    cookies: [],
  });
  const frame = (message: unknown) =>
    realtime.protocol.message({ connectionId, endpoint: ENDPOINT, body: JSON.stringify(message), receivedAt: now.value, requestId: connectionId });
  await frame({ type: MessageType.ConnectionInit, payload: { Authorization: `Bearer ${login.access_token}` } });
  await frame({ id: "s1", type: MessageType.Subscribe, payload: { query: `subscription { Post(slug: "${slug}") { slug title } }` } });
  const Post = app.model("Post");
  if (!Post) throw new Error("no Post");
  let exists = false;
  const write = async (title: string) => {
    const ctx = new Context({ userId: user });
    if (exists) await app.domain.patch(ctx, Post, { slug }, { slug, title });
    else await app.domain.create(ctx, Post, { slug, title, content: "c", status: "draft", viewCount: 0 });
    exists = true;
  };
  const messages = () => transport.messages(connectionId);
  return { auth, login, write, messages, transport, connectionId };
}

describe("WebSocket connections authenticated by an access token", () => {
  it("receive deliveries as the token's user, until its session is revoked: then an error per subscription and the connection is dropped", async () => {
    const now = { value: Date.now() };
    const w = await watcher(now);
    await w.write("first");
    expect(w.messages().filter((m) => m.type === MessageType.Next)).toHaveLength(1);
    const sid = JSON.parse(Buffer.from(w.login.access_token.split(".")[1] as string, "base64url").toString()).sid as string;
    await w.auth.sessions.revoke(sid);
    await w.write("second");
    const after = w.messages().slice(-1)[0];
    expect(after).toMatchObject({ id: "s1", type: MessageType.Error, payload: [{ extensions: { code: "UNAUTHENTICATED" } }] });
    expect(w.messages().filter((m) => m.type === MessageType.Next)).toHaveLength(1);
    expect(w.transport.disconnected).toContain(w.connectionId);
  });

  it("stop once the token has expired", async () => {
    const now = { value: Date.now() };
    const w = await watcher(now);
    await w.write("first");
    expect(w.messages().filter((m) => m.type === MessageType.Next)).toHaveLength(1);
    now.value += 901_000;
    await w.write("late");
    expect(w.messages().slice(-1)[0]).toMatchObject({ type: MessageType.Error });
    expect(w.transport.disconnected).toContain(w.connectionId);
  });
});
