import { randomUUID } from "node:crypto";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { createClient, type Client } from "graphql-ws";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { realtimeTableNames } from "../../lib/realtime/tables.ts";
import type { Offline } from "../support/offline.ts";
import { waitFor } from "../support/wait.ts";

/**
 * The issue tracker of issue 51, written into a new project with docs/models.md's API only
 * (fixtures/tracker/, its `*.ts.tmpl` files are the project's `*.ts`: they import the project's own
 * lib/, which does not resolve here), checked end to end against that project's `npm start`.
 */
const FIXTURE = fileURLToPath(new URL("fixtures/tracker", import.meta.url));

/** Writes the tracker's files into `project` (app/models/index.ts is replaced: it lists them). */
export function writeTracker(project: string): void {
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(FIXTURE, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else cpSync(join(FIXTURE, path), join(project, path.replace(/\.tmpl$/, "")));
    }
  };
  walk(".");
}

const OWNER = randomUUID();
const ASSIGNEE = randomUUID();
const STRANGER = randomUUID();
// Subscription deliveries go through DynamoDB Local's stream poller: slow on a loaded 2-core machine.
const DELIVERY_MS = 40_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
}

interface Feed {
  data: unknown[];
  errors: unknown[];
}

/** The tracker's checks against the project's `npm start`; `offline` and `wsPort` are read once it answers. */
export function describeTracker(offline: () => Offline, wsPort: () => number, tablePrefix: string): void {
  const clients: Client[] = [];
  let db: DynamoDBDocumentClient | undefined;

  afterAll(() => {
    for (const client of clients) void client.dispose();
    db?.destroy();
  });

  async function rest(method: string, path: string, user?: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${offline().url}${path}`, {
      method,
      headers: { ...(user ? { "x-test-user": user } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function gql(query: string, user?: string): Promise<GraphQLAnswer> {
    const response = await fetch(`${offline().url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(user ? { "x-test-user": user } : {}) },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as GraphQLAnswer;
  }

  async function project(owner: string, visibility: "public" | "private"): Promise<string> {
    const created = await rest("POST", "/projects", owner, { name: `${visibility} project`, visibility });
    expect(created, JSON.stringify(created)).toMatchObject({ status: 200, body: { owner, visibility } });
    return String(created.body.uuid);
  }

  async function issue(author: string, projectId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const created = await rest("POST", "/issues", author, { project: projectId, title: "Broken", status: "open", ...extra });
    expect(created, JSON.stringify(created)).toMatchObject({ status: 200, body: { author, status: "open" } });
    return String(created.body.uuid);
  }

  describe("the tracker written in it with docs/models.md's API, against its npm start", () => {
    it("closes an issue for its assignee or the project's owner (the issue patched, its history written), refuses anyone else", async () => {
      const pub = await project(OWNER, "public");
      const id = await issue(OWNER, pub, { assignee: ASSIGNEE });
      expect(await rest("PUT", `/issues/${id}/close`, STRANGER, {})).toEqual({
        status: 403,
        body: expect.objectContaining({ code: 403, message: "only the project's owner or the issue's assignee may close it" }),
      });
      expect((await rest("PUT", `/issues/${id}/close`, undefined, {})).status).toBe(401);
      const closed = await rest("PUT", `/issues/${id}/close`, ASSIGNEE, { note: "fixed" });
      expect(closed).toMatchObject({ status: 200, body: { status: "closed" } });
      const activity = await rest("GET", `/activities/${String(closed.body.activity)}`, STRANGER);
      expect(activity).toMatchObject({ status: 200, body: { issue: id, kind: "closed", note: "fixed", actor: ASSIGNEE } });
      expect((await rest("GET", `/issues/${id}`, STRANGER)).body).toMatchObject({ status: "closed", assignee: ASSIGNEE });
      expect((await rest("PUT", `/issues/${id}/close`, OWNER, {})).status).toBe(409);

      const other = await issue(ASSIGNEE, pub);
      const refused = await gql(`mutation { closeIssue(uuid: "${other}") { status } }`, STRANGER);
      expect(refused.errors?.[0]).toMatchObject({
        message: "only the project's owner or the issue's assignee may close it",
        extensions: { code: "PERMISSION_DENIED" },
      });
      const byOwner = await gql(`mutation { closeIssue(uuid: "${other}", note: "dup") { status activity } }`, OWNER);
      expect(byOwner.data?.closeIssue).toMatchObject({ status: "closed" });
    });

    it("hides a private project's issues from everyone but its owner: 404 by key and for an operation, absent from lists", async () => {
      const secret = await project(OWNER, "private");
      const id = await issue(OWNER, secret);
      expect((await rest("GET", `/issues/${id}`, STRANGER)).status).toBe(404);
      expect((await rest("PUT", `/issues/${id}/close`, STRANGER, {})).status).toBe(404);
      expect((await rest("PUT", "/issues", STRANGER, { q: `project = '${secret}'` })).body).toMatchObject({ results: [] });
      expect((await gql(`mutation { closeIssue(uuid: "${id}") { status } }`, STRANGER)).errors?.[0]?.extensions.code).toBe("NOT_FOUND");
      expect(await gql(`{ Issue(uuid: "${id}") { title } }`, STRANGER)).toMatchObject({ data: { Issue: null } });
      expect(await gql(`{ Issue(uuid: "${id}") { title } }`, OWNER)).toEqual({ data: { Issue: { title: "Broken" } } });
      // Filing an issue in it needs reading it (`requires: { create: "read" }`).
      expect((await rest("POST", "/issues", STRANGER, { project: secret, title: "Mine", status: "open" })).status).toBe(403);
    });

    it("answers a write refused inside an operation with that refusal, on REST and GraphQL, and writes nothing", async () => {
      const mine = await project(OWNER, "public");
      const theirs = await project(STRANGER, "private");
      const id = await issue(OWNER, mine);
      expect(await rest("PUT", `/issues/${id}/move`, OWNER, { project: theirs })).toEqual({
        status: 403,
        body: expect.objectContaining({ code: 403, message: "no such project" }),
      });
      const refused = await gql(`mutation { moveIssue(uuid: "${id}", project: "${theirs}") }`, OWNER);
      expect(refused.errors?.[0]).toMatchObject({ message: "no such project", extensions: { code: "PERMISSION_DENIED" } });
      expect((await rest("GET", `/issues/${id}`, OWNER)).body).toMatchObject({ project: mine });
      // The positive control: a project the caller may see takes it.
      const next = await project(OWNER, "private");
      expect(await gql(`mutation { moveIssue(uuid: "${id}", project: "${next}") }`, OWNER)).toEqual({ data: { moveIssue: next } });
    });

    it("lists a project's issues newest first through the sorted relation index; a filter no index serves is refused", async () => {
      const pub = await project(OWNER, "public");
      const ids: string[] = [];
      for (const title of ["first", "second", "third"]) ids.push(await issue(OWNER, pub, { title }));
      const q = `project = '${pub}' ORDER BY createdAt DESC`;
      const listed = await rest("PUT", "/issues", STRANGER, { q });
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect((listed.body.results as { uuid: string }[]).map((r) => r.uuid)).toEqual([...ids].reverse());
      const open = await gql(`{ Issues(query: "project = '${pub}' AND status = 'open' ORDER BY createdAt") { results { title } } }`, STRANGER);
      expect(open).toEqual({ data: { Issues: { results: [{ title: "first" }, { title: "second" }, { title: "third" }] } } });
      // `keyedFilters: "everyone"`: what the index does not serve is a 400, not a Scan.
      const unkeyed = await rest("PUT", "/issues", OWNER, { q: "title = 'first'" });
      expect(unkeyed.status).toBe(400);
      expect(String(unkeyed.body.message)).toContain("project (index by_project)");
    });

    it("delivers new issues over the WebSocket to graphql-ws's client, a private project's to its owner alone", async () => {
      const run = randomUUID().slice(0, 8);
      const feeds = { owner: subscribe(OWNER, `owner-${run}`), stranger: subscribe(STRANGER, `stranger-${run}`) };
      const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline().output())?.[1];
      if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline().output()}`);
      db ??= DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }));
      const table = realtimeTableNames(tablePrefix).subscriptions;
      const client = db;
      // graphql-ws has no acknowledgement of a subscribe: the rows the server stored for them say it was taken.
      await waitFor(
        async () => {
          const rows = await client
            .send(new ScanCommand({ TableName: table, FilterExpression: "contains(id, :run)", ExpressionAttributeValues: { ":run": run } }))
            .then((out) => out.Items ?? [])
            .catch(() => []);
          return rows.length;
        },
        (count) => count === 2,
        "both subscriptions stored",
        DELIVERY_MS,
      );
      const secret = await issue(OWNER, await project(OWNER, "private"), { title: `secret ${run}` });
      const open = await issue(OWNER, await project(OWNER, "public"), { title: `public ${run}` });
      const seen = (feed: Feed, id: string) => JSON.stringify(feed.data).includes(id);
      // Earlier tests' writes may still be on their way through the stream: this test's are named by its run.
      const ours = (feed: Feed) => feed.data.filter((d) => JSON.stringify(d).includes(run));
      // The owner hears of both; the stranger's copy of the public one, written after the secret one, is the control.
      await waitFor(
        () => feeds.owner,
        (f) => seen(f, secret) && seen(f, open),
        "the owner's two events",
        DELIVERY_MS,
      );
      await waitFor(
        () => feeds.stranger,
        (f) => seen(f, open),
        "the stranger's event",
        DELIVERY_MS,
      );
      expect(ours(feeds.stranger)).toEqual([{ Issues: { type: "CREATED", issue: { uuid: open, title: `public ${run}`, status: "open" } } }]);
      expect(ours(feeds.owner)).toContainEqual({ Issues: { type: "CREATED", issue: { uuid: secret, title: `secret ${run}`, status: "open" } } });
      expect([...feeds.owner.errors, ...feeds.stranger.errors]).toEqual([]);
    }, 120_000);
  });

  function subscribe(user: string, name: string): Feed {
    const client = createClient({
      url: `ws://127.0.0.1:${wsPort()}`,
      webSocketImpl: WebSocket,
      connectionParams: { testUser: user },
      retryAttempts: 0,
      generateID: () => name,
    });
    clients.push(client);
    const feed: Feed = { data: [], errors: [] };
    client.subscribe<Record<string, unknown>>(
      { query: "subscription { Issues { type issue { uuid title status } } }" },
      { next: (value) => feed.data.push(value.data), error: (error) => feed.errors.push(error), complete: () => undefined },
    );
    return feed;
  }
}
