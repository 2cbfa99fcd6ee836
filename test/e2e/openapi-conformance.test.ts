import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../app/index.ts";
import { writeRows } from "../../lib/auth/v3/seed-data.ts";
import { migrationTables } from "../../lib/auth/v3/setup.ts";
import { localDynamoDbClient } from "../../lib/local/local-aws.ts";
import { OFFLINE_STAGE } from "../../lib/local/offline.ts";
import { authCases } from "../support/openapi/auth-cases.ts";
import { BLOG_CASES } from "../support/openapi/blog-cases.ts";
import { Conformance, type Transport } from "../support/openapi/conformance.ts";
import { ContractChecker } from "../support/openapi/contract.ts";
import { exerciseAll } from "../support/openapi/plan.ts";
import type { Offline } from "../support/offline.ts";
import { sharedOffline } from "../support/shared-offline.ts";

let offline: Offline | undefined;
let document: Record<string, unknown> = {};
let run: Conformance | undefined;

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Statuses no call here can produce with the sample's data, and where they are checked instead. */
const ELSEWHERE = new Set([
  // DynamoDB Local neither throttles nor times out, and nothing fails inside: fault injection in test/rest/openapi-conformance.test.ts.
  429, 500, 503,
]);

/**
 * A login refused as unverified (403 EMAIL_NOT_VERIFIED) needs an email ident never confirmed in
 * `before` mode, which only v3 data has: one is written into npm start's DynamoDB Local as v3 left
 * it (a bcrypt `__password`, an ident keyed `<email>_email` without `_validation`).
 */
async function unverifiedAccount(): Promise<{ email: string; password: string }> {
  const endpoint = /DynamoDB Local on (http:\/\/127\.0\.0\.1:\d+)/.exec(offline?.output() ?? "")?.[1];
  if (!endpoint) throw new Error("npm start did not announce its DynamoDB Local");
  const client = DynamoDBDocumentClient.from(localDynamoDbClient(endpoint));
  const tables = migrationTables(app, `${app.name}-${OFFLINE_STAGE}-`);
  const email = `v3-${randomUUID().slice(0, 8)}@example.com`;
  const password = "v3 password never confirmed";
  const user = randomUUID();
  const now = new Date().toISOString();
  await writeRows(client, tables.users, [
    { uuid: user, username: "v3-user", email, name: "V3 User", __password: bcrypt.hashSync(password, 4), _creationDate: now, _lastUpdate: now },
  ]);
  await writeRows(client, tables.idents, [{ uuid: `${email}_email`, _type: "email", _user: user, email, _creationDate: now }]);
  return { email, password };
}

// Redirects are answers to check, not to follow; each Set-Cookie apart.
const transport: Transport = async (method, path, headers, body) => {
  const response = await fetch(`${offline?.url}${path}`, { method, headers, redirect: "manual", ...(body !== undefined ? { body } : {}) });
  return { status: response.status, headers: Object.fromEntries(response.headers), bodyText: await response.text(), cookies: response.headers.getSetCookie() };
};

beforeAll(async () => {
  // A cheap password hash (a Lambda runtime refuses this; npm start allows it for tests): registrations are many here.
  offline = await sharedOffline();
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

describe("OpenAPI conformance against npm start (serverless offline + DynamoDB Local)", () => {
  it("every operation answers, in success and in each failure it can produce, as GET /openapi.json says", async () => {
    run = new Conformance(new ContractChecker(document), transport);
    // npm start's HTTP server refuses a path parameter that is not valid percent-encoding with a
    // 400 of its own before the function: the router's 400 for it is checked in process.
    await exerciseAll(
      run,
      app,
      { ...BLOG_CASES, ...authCases({ projectDir: PROJECT_DIR, baseUrl: offline?.url ?? "", unverifiedAccount }) },
      (method, path) => transport(method, path, {}, undefined),
      { malformedPaths: false },
    );
    const operations = run.checker.operations().length;
    // ACCOUNT_EXISTS on the Idp's token login needs an email assertion the linking options refuse;
    // npm start's Idp admits only verified example.com addresses, which always link (in process:
    // test/auth/idp-linking.test.ts runs every combination).
    // A route with a path parameter lists 400 for the malformed ones (in process, above); where
    // that is its only 400, no call here produces it.
    const pathOnly400 = new Set(
      run.checker
        .operations()
        .filter((op) => op.path.includes("{"))
        .map((op) => `${op.operationId} 400`),
    );
    const unproduced = run.unproduced(ELSEWHERE).filter((missing) => missing !== "Auth.Idp.Token 409" && !pathOnly400.has(missing));
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
    const noField = run.recheck(
      drifted((doc) => {
        const post = doc.components.schemas.Post;
        if (!post) return;
        delete post.properties.author;
        post.required = post.required.filter((f) => f !== "author");
      }),
    );
    expect(noField.some((m) => m.includes("must NOT have unevaluated properties"))).toBe(true);
    const requiredEmail = run.recheck(drifted((doc) => doc.components.schemas.User?.required.push("email")));
    expect(requiredEmail.some((m) => m.startsWith("User.get 200") && m.includes("email"))).toBe(true);
    // The authentication routes' contracts drift the same way: a refusal's status, the error's `reason`.
    const noAuthStatus = run.recheck(drifted((doc) => delete doc.paths["/auth/idp/token"]?.post?.responses["403"]));
    expect(noAuthStatus.some((m) => m.startsWith("Auth.Idp.Token 403: status not listed"))).toBe(true);
    const noReason = run.recheck(drifted((doc) => delete doc.components.schemas.AuthError?.properties.reason));
    expect(noReason.some((m) => m.startsWith("Auth.Email.Login 401") && m.includes("must NOT have unevaluated properties"))).toBe(true);
    console.log(
      `Drift check: a removed status gives ${noStatus.length}, a removed field ${noField.length}, a wrongly required field ${requiredEmail.length}, ` +
        `a removed auth status ${noAuthStatus.length}, a removed error reason ${noReason.length} mismatches`,
    );
  });
});
