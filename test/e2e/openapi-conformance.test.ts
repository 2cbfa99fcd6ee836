import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../app/index.ts";
import { BLOG_CASES } from "../support/openapi/blog-cases.ts";
import { Conformance, type Transport } from "../support/openapi/conformance.ts";
import { ContractChecker } from "../support/openapi/contract.ts";
import { exerciseAll } from "../support/openapi/plan.ts";
import { startOffline, type Offline } from "../support/offline.ts";

let offline: Offline | undefined;
let document: Record<string, unknown> = {};
let run: Conformance | undefined;

const transport: Transport = async (method, path, headers, body) => {
  const response = await fetch(`${offline?.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  return { status: response.status, headers: Object.fromEntries(response.headers), bodyText: await response.text() };
};

beforeAll(async () => {
  offline = await startOffline();
  // The document a client generator would fetch: the live one, not a copy built in the test.
  document = (await (await fetch(`${offline.url}/openapi.json`)).json()) as Record<string, unknown>;
}, 400_000);

afterAll(async () => {
  await offline?.stop();
}, 60_000);

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
}

/** A copy of the document with one thing changed, as a drifting generator would have it. */
function drifted(change: (doc: Doc) => void): ContractChecker {
  const copy = structuredClone(document) as unknown as Doc;
  change(copy);
  return new ContractChecker(copy as unknown as Record<string, unknown>);
}

// Off until its plan knows two things that landed beside it (issue 17 stays open for them): children
// whose create/read needs a readable parent (Comment, PostTag: the plan must create the parent
// first), and the auth routes, whose function answers 404 instead of 405 for a wrong method.
describe.skip("OpenAPI conformance against npm start (serverless offline + DynamoDB Local)", () => {
  it("every operation answers, in success and in each failure it can produce, as GET /openapi.json says", async () => {
    run = new Conformance(new ContractChecker(document), transport);
    await exerciseAll(run, app, BLOG_CASES, (method, path) => transport(method, path, {}, undefined));
    const operations = run.checker.operations().length;
    // 429 (DynamoDB Local never throttles) and 500 need fault injection: test/rest/openapi-conformance.test.ts.
    const unproduced = run.unproduced(new Set([429, 500]));
    console.log(`OpenAPI conformance: ${run.produced.size}/${operations} operations covered, ${run.calls} calls, ${run.mismatches.length} mismatches`);
    expect(run.failures).toEqual([]);
    expect(run.mismatches).toEqual([]);
    expect(unproduced).toEqual([]);
    expect(run.produced.size).toBe(operations);
  }, 300_000);

  it("fails when the document drifts: a status or a field removed", () => {
    expect(run, "the conformance run above").toBeDefined();
    if (!run) return;
    const noStatus = run.recheck(drifted((doc) => delete doc.paths["/posts/{slug}"]?.get?.responses["404"]));
    expect(noStatus.some((m) => m.startsWith("Post.get 404: status not listed"))).toBe(true);
    // A status the plan produces whatever the document lists (413, 415, 404, 400), so forgetting it is caught too.
    const noMediaStatus = run.recheck(drifted((doc) => delete doc.paths["/posts/{slug}"]?.patch?.responses["415"]));
    expect(noMediaStatus.some((m) => m.startsWith("Post.patch 415: status not listed"))).toBe(true);
    const noField = run.recheck(drifted((doc) => {
      const post = doc.components.schemas.Post;
      if (!post) return;
      delete post.properties.author;
      post.required = post.required.filter((f) => f !== "author");
    }));
    expect(noField.some((m) => m.includes("must NOT have unevaluated properties"))).toBe(true);
    const requiredEmail = run.recheck(drifted((doc) => doc.components.schemas.User?.required.push("email")));
    expect(requiredEmail.some((m) => m.startsWith("User.get 200") && m.includes("email"))).toBe(true);
    console.log(`Drift check: a removed status gives ${noStatus.length}, a removed field ${noField.length}, a wrongly required field ${requiredEmail.length} mismatches`);
  });
});
