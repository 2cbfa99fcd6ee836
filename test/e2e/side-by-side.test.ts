import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchOffline, startOffline, type Offline } from "../support/offline.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { webSocketHandshake } from "../support/ws-handshake.ts";

/**
 * Two projects under `npm start` at once on one machine: the project on the default ports, and a
 * copy whose HTTP, WebSocket, Lambda, OpenID provider and DynamoDB Local ports are moved by the
 * environment variables `npm start` reads (docs/running-locally.md, "Ports"). Each answers on its
 * own ports, from its own database, and the copy's functions post to its own WebSocket API.
 */

const MOVED = { http: 4100, websocket: 4101, lambda: 4102, idp: 4103, db: 4104 };
const MOVED_ENV = {
  OFFLINE_HTTP_PORT: String(MOVED.http),
  OFFLINE_WEBSOCKET_PORT: String(MOVED.websocket),
  OFFLINE_LAMBDA_PORT: String(MOVED.lambda),
  IDP_PORT: String(MOVED.idp),
  DYNAMODB_PORT: String(MOVED.db),
};
const run = randomUUID().slice(0, 8);

let project: ProjectCopy | undefined;
let first: Offline | undefined;
let second: Offline | undefined;

beforeAll(async () => {
  project = new ProjectCopy("side-by-side");
  const copy = project;
  // The default ports through the offline lock, as every service file; the copy's are its own.
  first = await startOffline({ args: ["--empty"] });
  second = await launchOffline({ projectDir: copy.dir, args: ["--empty"], env: MOVED_ENV }, async () => undefined);
}, 600_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  project?.remove();
}, 120_000);

async function status(base: string | undefined, path: string, init: RequestInit = {}): Promise<number> {
  return (await fetch(`${base}${path}`, { ...init, redirect: "manual", signal: AbortSignal.timeout(30_000) })).status;
}

describe("two projects under npm start side by side", { timeout: 120_000 }, () => {
  it("each answers on its own HTTP port", async () => {
    expect(first?.url).toBe("http://127.0.0.1:3000");
    expect(second?.url).toBe(`http://127.0.0.1:${MOVED.http}`);
    expect(await status(first?.url, "/version")).toBe(200);
    expect(await status(second?.url, "/version")).toBe(200);
  });

  it("each reads and writes its own database; the copy's DynamoDB Local is on its port", async () => {
    expect(second?.output()).toContain(`DynamoDB Local on http://127.0.0.1:${MOVED.db}`);
    const slug = `side-${run}`;
    const created = await status(second?.url, "/tags", {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-user": randomUUID() },
      body: JSON.stringify({ slug, name: slug, description: "d", color: "#3366ff" }),
    });
    // 409: the SDK's retry of a write that had landed (a first write's timeout on a busy machine).
    expect([200, 409]).toContain(created);
    expect(await status(second?.url, `/tags/${slug}`)).toBe(200);
    expect(await status(first?.url, `/tags/${slug}`)).toBe(404);
  });

  it("each WebSocket API acknowledges its own connections (the functions post to their own offline)", async () => {
    // connection_ack reaches the client only through the management API the functions post to.
    expect(await webSocketHandshake(`ws://127.0.0.1:${MOVED.websocket}`)).toBe("connection_ack");
    expect(await webSocketHandshake("ws://127.0.0.1:3001")).toBe("connection_ack");
  });

  it("the copy's OpenID provider listens on its port, and the copy's sign-in sends the browser there", async () => {
    const discovery = (await (await fetch(`http://127.0.0.1:${MOVED.idp}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`http://127.0.0.1:${MOVED.idp}`);
    const signIn = await fetch(`${second?.url}/auth/idp`, { redirect: "manual" });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${MOVED.idp}/`));
    // The first project's sign-in is untouched.
    expect((await fetch(`${first?.url}/auth/idp`, { redirect: "manual" })).headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:3003\//);
  });
});
