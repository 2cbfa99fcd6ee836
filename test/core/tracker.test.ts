import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { Model } from "../../lib/core/model.ts";
import { describeModel } from "../../lib/core/model-info.ts";
import { belongsTo } from "../../lib/core/relations.ts";
import { Type } from "../../lib/core/schema.ts";
import { Project as ProjectModel } from "../fixtures/tracker/index.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { failure } from "../support/blog.ts";
import { trackerApp, type KeyReads } from "../support/tracker.ts";

/**
 * The tracker fixture (test/fixtures/tracker) through the domain on DynamoDB Local: rules that read
 * related records, written in the model files, and operations that act as their caller.
 */

const OWNER = randomUUID();
const ASSIGNEE = randomUUID();
const STRANGER = randomUUID();
const as = (userId?: string) => new Context(userId ? { userId } : {});

let app: Application;
let reads: KeyReads;
let Project: ModelInfo;
let Issue: ModelInfo;
let Activity: ModelInfo;

async function project(owner: string, visibility: "public" | "private", budget = 100): Promise<string> {
  const { data } = await app.domain.create(as(owner), Project, { name: `p-${visibility}`, visibility, budget });
  return String(data.uuid);
}

async function issue(author: string, projectId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { data } = await app.domain.create(as(author), Issue, { project: projectId, title: "Broken", status: "open", ...extra });
  return String(data.uuid);
}

beforeAll(async () => {
  let model: (name: string) => ModelInfo;
  ({ app, reads, model } = await trackerApp());
  [Project, Issue, Activity] = [model("Project"), model("Issue"), model("Activity")];
});

describe("the close rule: the project's owner or the issue's assignee", () => {
  it("lets the owner and the assignee close, and refuses anyone else (403) and the anonymous (401)", async () => {
    const pub = await project(OWNER, "public");
    const byOwner = await issue(STRANGER, pub);
    const byAssignee = await issue(STRANGER, pub, { assignee: ASSIGNEE });
    const refused = await failure(app.domain.invoke(as(STRANGER), Issue, "close", { uuid: byAssignee }, {}));
    expect(refused).toMatchObject({ status: 403, message: "only the project's owner or the issue's assignee may close it" });
    expect((await failure(app.domain.invoke(as(), Issue, "close", { uuid: byAssignee }, {}))).status).toBe(401);
    await expect(app.domain.invoke(as(OWNER), Issue, "close", { uuid: byOwner }, {})).resolves.toMatchObject({ status: "closed" });
    await expect(app.domain.invoke(as(ASSIGNEE), Issue, "close", { uuid: byAssignee }, {})).resolves.toMatchObject({ status: "closed" });
  });

  it("writes as the caller: the issue patched (its version moves), its history created with the caller as actor", async () => {
    const pub = await project(OWNER, "public");
    const id = await issue(OWNER, pub, { assignee: ASSIGNEE });
    const before = await app.domain.get(as(OWNER), Issue, { uuid: id });
    const result = (await app.domain.invoke(as(ASSIGNEE), Issue, "close", { uuid: id }, { note: "fixed" })) as { status: string; activity: string };
    const after = await app.domain.get(as(OWNER), Issue, { uuid: id });
    expect(after.data.status).toBe("closed");
    expect(after.version).toBe(before.version + 1);
    const activity = await app.domain.get(as(STRANGER), Activity, { uuid: result.activity });
    expect(activity.data).toMatchObject({ issue: id, kind: "closed", note: "fixed", actor: ASSIGNEE });
    // A second close is the operation's own refusal.
    expect((await failure(app.domain.invoke(as(OWNER), Issue, "close", { uuid: id }, {}))).status).toBe(409);
  });
});

describe("private projects", () => {
  it("hide their issues from everyone but the owner: get, list, filter and operations alike", async () => {
    const secret = await project(OWNER, "private");
    const id = await issue(OWNER, secret, { title: "secret issue" });
    expect((await failure(app.domain.get(as(STRANGER), Issue, { uuid: id }))).status).toBe(404);
    expect((await failure(app.domain.get(as(), Issue, { uuid: id }))).status).toBe(404);
    // The operation's record is read first: hidden is missing, before any rule of the operation.
    expect((await failure(app.domain.invoke(as(STRANGER), Issue, "close", { uuid: id }, {}))).status).toBe(404);
    const filtered = await app.domain.query(as(STRANGER), Issue, { q: `project = '${secret}'` });
    expect(filtered.results).toEqual([]);
    const byTitle = await app.domain.query(as(STRANGER), Issue, { q: `title = 'secret issue'` });
    expect(byTitle.results).toEqual([]);
    const mine = await app.domain.query(as(OWNER), Issue, { q: `project = '${secret}'` });
    expect(mine.results.map((r) => r.uuid)).toEqual([id]);
  });

  it("refuse filing an issue in them (the same answer as for a project that does not exist)", async () => {
    const secret = await project(OWNER, "private");
    const hidden = await failure(issue(STRANGER, secret));
    const missing = await failure(issue(STRANGER, randomUUID()));
    expect(hidden.status).toBe(403);
    expect({ status: missing.status, message: missing.message }).toEqual({ status: hidden.status, message: hidden.message });
  });
});

describe("a write refused inside an operation", () => {
  it("reaches the caller as that refusal, and nothing is written", async () => {
    const mine = await project(OWNER, "public");
    const theirs = await project(STRANGER, "private");
    const id = await issue(OWNER, mine);
    // The owner may transfer (the operation's rule), but the patch moving the issue into a project
    // the owner cannot see is theirs to be refused.
    const refused = await failure(app.domain.invoke(as(OWNER), Issue, "transfer", { uuid: id }, { project: theirs }));
    expect(refused.status).toBe(403);
    expect((await app.domain.get(as(OWNER), Issue, { uuid: id })).data.project).toBe(mine);
    const other = await project(OWNER, "private");
    await expect(app.domain.invoke(as(OWNER), Issue, "transfer", { uuid: id }, { project: other })).resolves.toBe(other);
  });
});

describe("a static operation", () => {
  it("creates records as its caller, whose rules apply", async () => {
    const started = (await app.domain.invoke(as(STRANGER), Project, "start", undefined, { name: "Mine" })) as { project: string; issue: string };
    const created = await app.domain.get(as(STRANGER), Project, { uuid: started.project });
    expect(created.data).toMatchObject({ owner: STRANGER, visibility: "private", budget: 0 });
    expect((await app.domain.get(as(STRANGER), Issue, { uuid: started.issue })).data).toMatchObject({ author: STRANGER, project: started.project });
    expect((await failure(app.domain.get(as(OWNER), Issue, { uuid: started.issue }))).status).toBe(404);
    expect((await failure(app.domain.invoke(as(), Project, "start", undefined, { name: "x" }))).status).toBe(401);
  });
});

describe("related reads", () => {
  it("cost one read of the projects for a page of issues in several projects", async () => {
    const projects = await Promise.all([project(OWNER, "public"), project(OWNER, "public"), project(OWNER, "private")]);
    const tag = randomUUID().slice(0, 8);
    for (const p of projects) for (let i = 0; i < 4; i++) await issue(OWNER, p, { title: `batch ${tag}` });
    reads.reset();
    const page = await app.domain.query(as(STRANGER), Issue, { q: `title = 'batch ${tag}'` });
    expect(page.results).toHaveLength(8);
    expect(reads.batches.get("Project")).toBe(1);
  });

  it("cost one read per model along a chain of parents (activities -> issues -> projects)", async () => {
    const p = await project(OWNER, "public");
    const ids = await Promise.all([issue(OWNER, p), issue(OWNER, p), issue(OWNER, p)]);
    for (const id of ids) await app.domain.invoke(as(OWNER), Issue, "close", { uuid: id }, { note: "batch" });
    reads.reset();
    const page = await app.domain.query(as(STRANGER), Activity, { q: `issue IN ['${ids.join("','")}']` });
    expect(page.results).toHaveLength(3);
    expect(reads.batches.get("Issue")).toBe(1);
    expect(reads.batches.get("Project")).toBe(1);
  });

  it("in an operation are the caller's view: a hidden field stays hidden", async () => {
    const p = await project(OWNER, "public", 5000);
    const id = await issue(OWNER, p);
    expect(await app.domain.invoke(as(STRANGER), Issue, "summary", { uuid: id }, {})).toEqual({ title: "Broken", project: "p-public" });
    expect(await app.domain.invoke(as(OWNER), Issue, "summary", { uuid: id }, {})).toEqual({ title: "Broken", project: "p-public", budget: 5000 });
    // The rule read the budget-carrying record; the caller's issue carries none of it.
    expect(Object.keys((await app.domain.get(as(STRANGER), Issue, { uuid: id })).data)).not.toContain("budget");
  });
});

describe("a belongs-to sort key", () => {
  it("serves `project = x ORDER BY createdAt` from the relation's own index", async () => {
    const p = await project(OWNER, "public");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await issue(OWNER, p, { title: `n${i}` }));
      // Distinct creation times (milliseconds), so that the order asked for is one order.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(Issue.table.indexes).toContainEqual({ name: "by_project", hash: "project", range: "createdAt" });
    const page = await app.domain.query(as(STRANGER), Issue, { q: `project = '${p}' ORDER BY createdAt DESC` });
    expect(page.results.map((r) => r.uuid)).toEqual([...ids].reverse());
    // A Query of that index reads the project's issues only.
    expect(page.scanned).toBe(3);
  });
});

describe("a belongs-to sort key declaration", () => {
  it("is refused when it names a field the records do not carry", () => {
    class Misnamed extends Model {
      static override readonly schema = Type.Object({ uuid: Type.String(), project: Type.String() });
      static override readonly relations = { project: belongsTo(() => ProjectModel, { sortKey: "createdOn" }) };
    }
    expect(() => describeModel(Misnamed)).toThrow("Misnamed.project: sortKey 'createdOn' is not a field of the model");
  });
});
