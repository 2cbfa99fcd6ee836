import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { graphqlOptions } from "../../lib/graphql/service.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { probeModel } from "../../lib/rest/openapi-security.ts";
import type { GraphQLBody } from "../graphql/support.ts";
import { call, httpEvent, type Answer } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";
import { trackerApp } from "../support/tracker.ts";

/**
 * The tracker fixture's rules through the faces, in process, over DynamoDB Local: the close rule,
 * private projects, an operation that writes, and a write refused inside an operation reaching
 * REST and GraphQL as that refusal.
 */

const OWNER = randomUUID();
const ASSIGNEE = randomUUID();
const STRANGER = randomUUID();

asServerlessOffline();

let rest: (method: string, path: string, user?: string, body?: unknown) => Promise<Answer>;
let gql: (query: string, user?: string) => Promise<GraphQLBody>;
let model: (name: string) => ModelInfo;

beforeAll(async () => {
  const built = await trackerApp();
  const app = built.app;
  model = built.model;
  const restFace = restHandler(app);
  const graphqlFace = graphqlHandler(app, graphqlOptions(app, {}));
  const headers = (user?: string): Record<string, string> => (user ? { "x-test-user": user } : {});
  rest = (method, path, user, body) => call(restFace, httpEvent(method, path, { headers: headers(user), ...(body === undefined ? {} : { body }) }));
  gql = async (query, user) => (await call(graphqlFace, httpEvent("POST", "/graphql", { body: { query }, headers: headers(user) }))).body as GraphQLBody;
});

async function project(owner: string, visibility: "public" | "private"): Promise<string> {
  const created = await rest("POST", "/projects", owner, { name: `p-${visibility}`, visibility, budget: 10 });
  expect(created.statusCode).toBe(200);
  return String((created.body as { uuid: string }).uuid);
}

async function issue(author: string, projectId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await rest("POST", "/issues", author, { project: projectId, title: "Broken", status: "open", ...extra });
  expect(created.statusCode).toBe(200);
  return String((created.body as { uuid: string }).uuid);
}

describe("the tracker over REST", () => {
  it("closes an issue for its assignee (the issue patched, its history written) and refuses a stranger with the rule's 403", async () => {
    const pub = await project(OWNER, "public");
    const id = await issue(OWNER, pub, { assignee: ASSIGNEE });
    const refused = await rest("PUT", `/issues/${id}/close`, STRANGER, {});
    expect(refused).toMatchObject({ statusCode: 403, body: { code: 403, message: "only the project's owner or the issue's assignee may close it" } });
    expect((await rest("PUT", `/issues/${id}/close`, undefined, {})).statusCode).toBe(401);
    const closed = await rest("PUT", `/issues/${id}/close`, ASSIGNEE, { note: "done" });
    expect(closed).toMatchObject({ statusCode: 200, body: { status: "closed" } });
    const activity = await rest("GET", `/activities/${(closed.body as { activity: string }).activity}`, STRANGER);
    expect(activity.body).toMatchObject({ issue: id, kind: "closed", actor: ASSIGNEE });
    expect((await rest("GET", `/issues/${id}`, STRANGER)).body).toMatchObject({ status: "closed" });
  });

  it("hides a private project's issues: 404 by key and for an operation, absent from lists and filters", async () => {
    const secret = await project(OWNER, "private");
    const id = await issue(OWNER, secret);
    expect((await rest("GET", `/issues/${id}`, STRANGER)).statusCode).toBe(404);
    expect((await rest("PUT", `/issues/${id}/close`, STRANGER, {})).statusCode).toBe(404);
    const listed = await rest("PUT", "/issues", STRANGER, { q: `project = '${secret}'` });
    expect(listed).toMatchObject({ statusCode: 200, body: { results: [] } });
    const own = await rest("PUT", "/issues", OWNER, { q: `project = '${secret}' ORDER BY createdAt DESC` });
    expect((own.body as { results: { uuid: string }[] }).results.map((r) => r.uuid)).toEqual([id]);
  });

  it("answers a write refused inside an operation with that refusal (403), leaving the record as it was", async () => {
    const mine = await project(OWNER, "public");
    const theirs = await project(STRANGER, "private");
    const id = await issue(OWNER, mine);
    const refused = await rest("PUT", `/issues/${id}/transfer`, OWNER, { project: theirs });
    expect(refused).toMatchObject({ statusCode: 403, body: { code: 403, message: "no such project" } });
    expect((await rest("GET", `/issues/${id}`, OWNER)).body).toMatchObject({ project: mine });
  });
});

describe("the tracker over GraphQL", () => {
  it("closes for the project's owner, refuses a stranger with PERMISSION_DENIED and a hidden issue with NOT_FOUND", async () => {
    const pub = await project(OWNER, "public");
    const id = await issue(STRANGER, pub);
    const refused = await gql(`mutation { closeIssue(uuid: "${id}") { status } }`, ASSIGNEE);
    expect(refused.errors?.[0]?.extensions.code).toBe("PERMISSION_DENIED");
    const closed = await gql(`mutation { closeIssue(uuid: "${id}", note: "dup") { status activity } }`, OWNER);
    expect(closed.data?.closeIssue).toMatchObject({ status: "closed" });
    const secret = await issue(OWNER, await project(OWNER, "private"));
    const hidden = await gql(`mutation { closeIssue(uuid: "${secret}") { status } }`, STRANGER);
    expect(hidden.errors?.[0]?.extensions.code).toBe("NOT_FOUND");
    const listed = await gql(`{ Issues(query: "uuid = '${secret}'") { results { uuid } } }`, STRANGER);
    expect(listed.data?.Issues).toEqual({ results: [] });
  });

  it("answers a write refused inside an operation with PERMISSION_DENIED", async () => {
    const mine = await project(OWNER, "public");
    const theirs = await project(STRANGER, "private");
    const id = await issue(OWNER, mine);
    const refused = await gql(`mutation { transferIssue(uuid: "${id}", project: "${theirs}") }`, OWNER);
    expect(refused.errors?.[0]).toMatchObject({ message: "no such project", extensions: { code: "PERMISSION_DENIED" } });
  });

  it("runs a static operation that writes as its caller", async () => {
    const started = await gql(`mutation { startProject(name: "Mine") { project issue } }`, STRANGER);
    const { project: projectId } = started.data?.startProject as { project: string; issue: string };
    const seen = await gql(`{ Project(uuid: "${projectId}") { visibility budget } }`, STRANGER);
    expect(seen.data?.Project).toEqual({ visibility: "private", budget: 0 });
    expect((await rest("GET", `/projects/${projectId}`, STRANGER)).body).toMatchObject({ owner: STRANGER });
    expect((await gql(`{ Project(uuid: "${projectId}") { name } }`, OWNER)).data?.Project).toBeNull();
  });

  it("never makes a hidden required field an error: the project's budget is nullable, null for a non-owner", async () => {
    const pub = await project(OWNER, "public");
    const answer = await gql(`{ Project(uuid: "${pub}") { name budget } }`, STRANGER);
    expect(answer).toEqual({ data: { Project: { name: "p-public", budget: null } } });
  });
});

describe("the tracker's OpenAPI security", () => {
  it("counts a policy that reads related records as one that may let anyone through and may refuse", () => {
    // The probe has no related records to give: the document lists 401 and 403, credentials optional.
    expect(probeModel(model("Issue"), "read")).toEqual({ anonymousMayPass: true, anonymousMayFail: true, userMayFail: true });
    expect(probeModel(model("Project"), "create")).toEqual({ anonymousMayPass: false, anonymousMayFail: true, userMayFail: false });
  });
});
