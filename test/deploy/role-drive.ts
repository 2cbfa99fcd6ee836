import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { AddressInfo } from "node:net";
import { httpEvent, lambdaContext } from "../support/http-events.ts";

/**
 * Representative requests for every function of the sample, each sent to the function packaging
 * gave its route (the template's routes), in process, against DynamoDB Local: the auth flows
 * (registration with its mail, login, refresh, recovery, password change, the Idp's start, logout),
 * every model's create / read / query / update / patch / delete and operation, the services,
 * GraphQL reads and writes, GraphiQL, a WebSocket subscription and the stream records that reach it,
 * and the migration's dry run. SES and the WebSocket management API are a loopback stub that keeps
 * the mails, so the flows that need a mailed token get it.
 */

export interface Invocation {
  /** The serverless function's name (`rest-post-get`), under which its calls are recorded. */
  fn: string;
  handler: string;
}

/** The loopback stand-in for SES v2 and the management API: answers as they do, keeps each mail's text. */
export async function awsStub(): Promise<{ url: string; mails: string[]; gone: Set<string>; server: Server }> {
  const mails: string[] = [];
  const gone = new Set<string>();
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      if (request.url?.startsWith("/v2/email/outbound-emails")) {
        mails.push(body);
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ MessageId: randomUUID() }));
        return;
      }
      const connection = decodeURIComponent(/@connections\/([^/?]+)/.exec(request.url ?? "")?.[1] ?? "");
      if (gone.has(connection)) {
        response.writeHead(410, { "content-type": "application/json", "x-amzn-errortype": "GoneException" }).end(JSON.stringify({ message: "gone" }));
        return;
      }
      // PostToConnection and DeleteConnection: the connection exists and takes the frame.
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, mails, gone, server };
}

interface Reply {
  status: number;
  body: unknown;
}

export interface Driver {
  /** Calls the function the route belongs to; `as` is a bearer access token. */
  http(method: string, path: string, options?: { body?: unknown; token?: string; cookie?: string }): Promise<Reply>;
  ws(routeKey: string, connectionId: string, body?: unknown, headers?: Record<string, string>): Promise<unknown>;
  stream(table: string, eventName: "INSERT" | "MODIFY" | "REMOVE", item: Record<string, unknown>): Promise<unknown>;
  migrate(): Promise<unknown>;
  /** One share message from the fan-out queue, as the worker's event source hands it over. */
  fanout(body: string): Promise<unknown>;
  /** From now on the management API answers 410 Gone for this connection. */
  gone(connectionId: string): void;
}

/** The token of the last mail to `email` (verification, registration and recovery links). */
function mailedToken(mails: string[], email: string): string {
  type Sent = { Destination: { ToAddresses: string[] }; Content: { Simple: { Body: { Text: { Data: string } } } } };
  const sent = mails.map((m) => JSON.parse(m) as Sent).filter((m) => m.Destination.ToAddresses.includes(email));
  const mail = sent.at(-1)?.Content.Simple.Body.Text.Data;
  const token = mail ? /token=([A-Za-z0-9_.~%-]+)/.exec(mail)?.[1] : undefined;
  if (!token) throw new Error(`no mailed token for ${email} in ${mails.length} mails`);
  return decodeURIComponent(token);
}

/** Drives every function; returns the HTTP statuses by route, for the test to check the drive did what it says. */
export async function driveEveryFunction(d: Driver, mails: string[], prefix: string): Promise<Record<string, string>> {
  const statuses: Record<string, string> = {};
  const call = async (method: string, path: string, options: { body?: unknown; token?: string } = {}): Promise<Reply> => {
    const reply = await d.http(method, path, options);
    const code = (reply.body as { code?: string } | undefined)?.code;
    statuses[`${method} ${path.split("?")[0]}`] = `${reply.status}${reply.status >= 400 && code ? ` ${code}` : ""}`;
    return reply;
  };
  const email = `roles-${randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery staple";

  // Auth: registration with its mailed token, login, the session routes, recovery, password change.
  await call("GET", "/.well-known/jwks.json");
  await call("GET", "/auth/providers");
  await call("POST", "/auth/email/register", { body: { email } });
  const registered = await call("POST", "/auth/email/register", {
    body: { email, token: mailedToken(mails, email), password, user: { username: `u${randomUUID().slice(0, 8)}`, name: "Role Tester" } },
  });
  const login = await call("POST", "/auth/email/login", { body: { email, password } });
  const { access_token: token, refresh_token: refresh, user } = login.body as { access_token: string; refresh_token: string; user: { uuid: string } };
  if (!token) throw new Error(`no login: ${JSON.stringify(registered)} ${JSON.stringify(login)}`);
  await call("GET", "/auth/me", { token });
  const idents = await call("GET", "/auth/idents", { token });
  await call("POST", "/auth/refresh", { body: { refresh_token: refresh } });
  await call("GET", "/auth/idp");
  await call("GET", "/auth/idp/callback?state=unknown&code=unknown");
  await call("POST", "/auth/idp/token", { body: { id_token: "x" } });
  const session = (await call("POST", "/auth/email/login", { body: { email, password } })).body as { access_token: string };
  const as = session.access_token;
  // The models, through their routes.
  const slug = `roles-${randomUUID().slice(0, 8)}`;
  const tag = `tag-${randomUUID().slice(0, 8)}`;
  await call("POST", "/posts", { body: { slug, title: "Roles", content: "text", status: "draft", viewCount: 0 }, token: as });
  await call("GET", `/posts/${slug}`, { token: as });
  await call("PUT", "/posts", { body: { q: "status = 'draft'" }, token: as });
  await call("PUT", `/posts/${slug}`, { body: { slug, title: "Roles 2", content: "text", status: "draft", viewCount: 0 }, token: as });
  await call("PATCH", `/posts/${slug}`, { body: { title: "Roles 3" }, token: as });
  await call("PUT", `/posts/${slug}/publish`, { body: { destination: "linkedin" }, token: as });
  await call("POST", "/tags", { body: { slug: tag, name: "Tag", description: "d", color: "#336699" }, token: as });
  await call("GET", `/tags/${tag}`, { token: as });
  await call("PUT", "/tags", { body: { q: "" }, token: as });
  await call("PUT", `/tags/${tag}`, { body: { slug: tag, name: "Tag 2", description: "d", color: "#336699" }, token: as });
  await call("PATCH", `/tags/${tag}`, { body: { name: "Tag 3" }, token: as });
  await call("POST", "/posttags", { body: { post: slug, tag }, token: as });
  await call("GET", `/posttags/${slug}/${tag}`, { token: as });
  await call("PUT", "/posttags", { body: { q: "" }, token: as });
  await call("PUT", `/posttags/${slug}/${tag}`, { body: { post: slug, tag }, token: as });
  await call("PATCH", `/posttags/${slug}/${tag}`, { body: {}, token: as });
  await call("DELETE", `/posttags/${slug}/${tag}`, { token: as });
  const comment = (await call("POST", "/comments", { body: { content: "first", post: slug, author: user.uuid }, token: as })).body as { uuid?: string };
  const commentId = comment.uuid ?? randomUUID();
  await call("GET", `/comments/${commentId}`, { token: as });
  await call("PUT", "/comments", { body: { q: "" }, token: as });
  await call("PUT", `/comments/${commentId}`, { body: { content: "second", post: slug, author: user.uuid }, token: as });
  await call("PATCH", `/comments/${commentId}`, { body: { content: "third" }, token: as });
  await call("DELETE", `/comments/${commentId}`, { token: as });
  await call("GET", `/users/${user.uuid}`, { token: as });
  await call("PUT", "/users", { body: { q: "" }, token: as });
  await call("PATCH", `/users/${user.uuid}`, { body: { bio: "roles" }, token: as });
  // A User's email is the server's (set from the verified ident): clients never write it.
  await call("PUT", `/users/${user.uuid}`, { body: { username: "x", name: "x" }, token: as });
  await call("POST", "/users", { body: { username: "someone", name: "o" }, token: as });
  await call("DELETE", `/users/${randomUUID()}`, { token: as });
  const other = randomUUID();
  await call("POST", "/userfollows", { body: { follower: user.uuid, following: other }, token: as });
  await call("GET", `/userfollows/${user.uuid}/${other}`, { token: as });
  await call("PUT", "/userfollows", { body: { q: "" }, token: as });
  await call("PUT", `/userfollows/${user.uuid}/${other}`, { body: { follower: user.uuid, following: other }, token: as });
  await call("PATCH", `/userfollows/${user.uuid}/${other}`, { body: {}, token: as });
  await call("DELETE", `/userfollows/${user.uuid}/${other}`, { token: as });
  await call("GET", "/version");
  await call("PUT", "/publisher/publish", { body: { message: "hello" }, token: as });
  await call("PUT", "/publisher/publishpost", { body: { postId: slug }, token: as });
  await call("PUT", "/testbean/testoperation", { body: { counter: 255 } });
  await call("GET", "/openapi.json");
  await call("GET", "/nowhere/at/all");

  // GraphQL reads (every model, relations included) and writes of every model; GraphiQL's page.
  const gql = async (query: string) => {
    const reply = await call("POST", "/graphql", { body: { query }, token: as });
    const errors = (reply.body as { errors?: unknown[] }).errors;
    if (errors) throw new Error(`GraphQL answered ${JSON.stringify(errors)} to ${query}`);
    return reply.body as { data: Record<string, Record<string, unknown> | null> };
  };
  const gqlTag = `gql-${randomUUID().slice(0, 8)}`;
  await gql(
    `{ Post(slug: "${slug}") { slug author { uuid } comments { results { uuid } } tags { slug } } Posts { results { slug } } Comments { results { uuid } } Tags { results { slug } } Users { results { uuid } } UserFollows { results { follower { uuid } } } PostTags { results { post { slug } } } }`,
  );
  await gql(`mutation { createPost(Post: { slug: "${gqlTag}", title: "g", content: "g", status: "draft", viewCount: 0 }) { slug } }`);
  await gql(`mutation { createTag(Tag: { slug: "${gqlTag}", name: "t", description: "d", color: "#123456" }) { slug } }`);
  await gql(`mutation { createPostTag(PostTag: { post: "${slug}", tag: "${gqlTag}" }) { tag { slug } } }`);
  await gql(`mutation { createUserFollow(UserFollow: { follower: "${user.uuid}", following: "${randomUUID()}" }) { following { uuid } } }`);
  await gql(`mutation { createComment(Comment: { content: "gql", post: "${slug}", author: "${user.uuid}" }) { uuid } }`);
  await gql(`mutation { updateUser(uuid: "${user.uuid}", User: { username: "${`g${randomUUID().slice(0, 8)}`}", name: "G" }) { uuid } }`);
  await gql(`mutation { deleteTag(uuid: "${gqlTag}") { success } }`);
  await call("GET", "/graphiql");

  // A subscription over the WebSocket API, and the stream records that reach it.
  const connection = `c-${randomUUID().slice(0, 8)}`;
  await d.ws("$connect", connection, undefined, { Host: "abc123.execute-api.us-east-1.amazonaws.com", "Sec-WebSocket-Protocol": "graphql-transport-ws" });
  await d.ws("$default", connection, { type: "connection_init", payload: { authorization: `Bearer ${as}` } });
  await d.ws("$default", connection, { id: "s1", type: "subscribe", payload: { query: `subscription { Post(slug: "${slug}") { slug title } }` } });
  await d.ws("$default", connection, { id: "s2", type: "subscribe", payload: { query: "subscription { Comments { type comment { uuid content } } }" } });
  // A second subscriber whose connection API Gateway reports gone when the stream posts to it.
  const gone = `gone-${randomUUID().slice(0, 8)}`;
  await d.ws("$connect", gone, undefined, { Host: "abc123.execute-api.us-east-1.amazonaws.com", "Sec-WebSocket-Protocol": "graphql-transport-ws" });
  await d.ws("$default", gone, { type: "connection_init", payload: { authorization: `Bearer ${as}` } });
  await d.ws("$default", gone, { id: "g1", type: "subscribe", payload: { query: `subscription { Post(slug: "${slug}") { slug title } }` } });
  d.gone(gone);
  const now = new Date().toISOString();
  const stored = {
    slug,
    title: "streamed",
    content: "text",
    status: "published",
    viewCount: 0,
    author: user.uuid,
    createdAt: now,
    updatedAt: now,
    __version: 9,
  };
  await d.stream(`${prefix}Post`, "MODIFY", stored);
  await d.stream(`${prefix}Comment`, "INSERT", {
    uuid: randomUUID(),
    content: "streamed",
    post: slug,
    author: user.uuid,
    createdAt: now,
    updatedAt: now,
    __version: 1,
  });
  await d.stream(`${prefix}Post`, "REMOVE", stored);
  // A share of the Comment topic for the fan-out worker, one of whose subscribers is gone.
  const goneToo = `gone-${randomUUID().slice(0, 8)}`;
  await d.ws("$connect", goneToo, undefined, { Host: "abc123.execute-api.us-east-1.amazonaws.com", "Sec-WebSocket-Protocol": "graphql-transport-ws" });
  await d.ws("$default", goneToo, { type: "connection_init", payload: { authorization: `Bearer ${as}` } });
  await d.ws("$default", goneToo, { id: "g2", type: "subscribe", payload: { query: "subscription { Comments { type comment { uuid content } } }" } });
  d.gone(goneToo);
  const shared = { uuid: randomUUID(), content: "shared", post: slug, author: user.uuid, createdAt: now, updatedAt: now, __version: 1 };
  await d.fanout(
    JSON.stringify({
      event: { name: "Comment.Created", model: "Comment", kind: "Created", key: { uuid: shared.uuid }, record: shared },
      topic: "Comment",
      range: { index: 0, of: 1 },
      sequence: "1",
    }),
  );
  await d.ws("$default", connection, { id: "s1", type: "complete" });
  await d.ws("$disconnect", connection);

  // Recovery and change (a recovery mail has its own slot per address: the registration mail
  // just sent does not hold it back): then unlinking, logout, and the post and tag go.
  await call("POST", "/auth/password/recovery", { body: { email } });
  const recoveryToken = mailedToken(mails, email);
  await call("GET", `/auth/email/recover?token=${encodeURIComponent(recoveryToken)}`);
  const recovered = await call("POST", "/auth/password/recover", { body: { token: recoveryToken, password: `${password}!` } });
  const changed = await call("POST", "/auth/password/change", {
    body: { password: `${password}!`, new_password: password },
    token: (recovered.body as { access_token: string }).access_token,
  });
  const last = (changed.body as { access_token: string }).access_token;
  await call("POST", "/auth/email/verification", { body: { email }, token: last });
  await call("GET", `/auth/email/verify?token=${"x".repeat(40)}`);
  const ident = ((idents.body as { idents?: { id?: string }[] }).idents ?? [])[0];
  await call("DELETE", `/auth/idents/${encodeURIComponent(ident?.id ?? "none")}`, { token: last });
  await call("DELETE", `/posts/${slug}`, { token: last });
  await call("DELETE", `/tags/${tag}`, { token: last });
  await call("POST", "/auth/logout", { token: last });
  await d.migrate();
  return statuses;
}

/** A DynamoDB stream event of one record on `table`, as Lambda hands it to the stream function. */
export function streamEvent(table: string, eventName: "INSERT" | "MODIFY" | "REMOVE", item: Record<string, unknown>) {
  const image = marshall(item, { removeUndefinedValues: true });
  return {
    Records: [
      {
        eventID: randomUUID(),
        eventName,
        eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}/stream/2026-01-01T00:00:00.000`,
        dynamodb: { ApproximateCreationDateTime: Math.floor(Date.now() / 1000), ...(eventName === "REMOVE" ? { OldImage: image } : { NewImage: image }) },
      },
    ],
  };
}

export { httpEvent, lambdaContext };
