import { describe, expect, it, vi } from "vitest";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { ThrottledError, UnavailableError } from "../../lib/core/errors.ts";
import { log } from "../../lib/core/log.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { openApiDocument } from "../../lib/rest/openapi.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import type { Application } from "../../lib/core/application.ts";
import { blog } from "../support/blog.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";
import { BLOG_CASES } from "../support/openapi/blog-cases.ts";
import { Conformance, type Call, type Transport } from "../support/openapi/conformance.ts";
import { ContractChecker, type Operation } from "../support/openapi/contract.ts";
import { exerciseAll } from "../support/openapi/plan.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

asServerlessOffline();

function inProcess(application: Application, face: "rest" | "auth" = "rest"): Transport {
  const handler = face === "rest" ? restHandler(application) : httpHandler("auth", authDispatcher(application));
  return async (method, path, headers, body) => {
    const { cookie, ...rest } = headers;
    const event = httpEvent(method, path, { headers: rest, ...(body !== undefined ? { rawBody: body } : {}) });
    // Payload 2.0 carries cookies apart from the headers.
    if (cookie) event.cookies = cookie.split("; ");
    const result = (await handler(event, lambdaContext())) as APIGatewayProxyStructuredResultV2;
    const lower = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: result.statusCode ?? 200, headers: lower, bodyText: result.body ?? "" };
  };
}

const app = blog();
const document = openApiDocument(app, deriveRoutes(app));

/**
 * The auth routes are another function's (functions/auth.ts) and need the mail outbox and the local
 * OpenID provider: the e2e suite calls them against npm start. Here, the REST function serves them
 * only as the catch-all does: a wrong method on their paths is a 405 (exerciseRouting checks it).
 */
const authOperation = (op: Operation) => (op.spec.tags as string[] | undefined)?.includes("Authentication") === true;

describe("OpenAPI conformance in process (memory store; the e2e suite runs the same plan on npm start)", () => {
  it("every operation's answers, successes and failures, match the document", async () => {
    const transport = inProcess(blog());
    const run = new Conformance(new ContractChecker(document), transport);
    await exerciseAll(run, app, BLOG_CASES, (method, path) => transport(method, path, {}, undefined), { skip: authOperation });
    expect(run.failures).toEqual([]);
    expect(run.mismatches).toEqual([]);
    expect(run.unproduced(new Set([429, 500, 503]), authOperation)).toEqual([]);
    // The same answers against a document that forgot one status: the plan sent that variant anyway.
    const drifted = structuredClone(document) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    delete drifted.paths["/users/{uuid}"]?.put?.responses["413"];
    expect(run.recheck(new ContractChecker(drifted as unknown as Record<string, unknown>))).toEqual([
      expect.stringMatching(/^User.update 413: status not listed/),
    ]);
  });

  it("the auth routes answer a throttled (429) or timed-out (503) store and an internal error (500) as the document says", async () => {
    const checker = new ContractChecker(document);
    const logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
    let covered = 0;
    for (const [status, error] of [
      [429, () => new ThrottledError(2)],
      [503, () => new UnavailableError(2)],
      [500, () => new Error("disk on fire")],
    ] as const) {
      const run = new Conformance(
        checker,
        inProcess(
          blog((_model, table) => failing(new MemoryRepository(table), error)),
          "auth",
        ),
      );
      // The routes that touch the store list 429 and 503; a broken store is a 500 on each of them.
      const touching = checker
        .operations()
        .filter((op) => authOperation(op) && !TOKEN_FIRST.has(op.operationId) && checker.statuses(op.operationId).includes(429));
      for (const op of touching) await run.call(storeBound(op, status));
      expect(run.failures).toEqual([]);
      expect(run.mismatches).toEqual([]);
      covered = touching.length;
    }
    expect(covered).toBeGreaterThanOrEqual(10);
    logged.mockRestore();
  });

  it("a throttled database (429), one that times out (503), both with Retry-After, and an internal error (500) match the document on every operation listing them", async () => {
    const checker = new ContractChecker(document);
    const healthy = inProcess(blog());
    const ready = new Conformance(checker, healthy);
    await exerciseAll(ready, app, BLOG_CASES, (method, path) => healthy(method, path, {}, undefined), { skip: authOperation });
    // Fault injection: DynamoDB still throttling after the SDK's retries, or not answering in time;
    // any unexpected error below the face.
    const throttledApp = blog((_model, table) => failing(new MemoryRepository(table), () => new ThrottledError(2)));
    const timedOutApp = blog((_model, table) => failing(new MemoryRepository(table), () => new UnavailableError(2)));
    const brokenApp = blog();
    for (const name of ["create", "get", "update", "patch", "delete", "query", "invoke", "invokeService"] as const) {
      (brokenApp.domain as unknown as Record<string, unknown>)[name] = () => Promise.reject(new Error("disk on fire"));
    }
    // Each 500 logs its cause under the request id; kept out of the test output, counted instead.
    const logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
    for (const [status, faulty] of [
      [429, throttledApp],
      [503, timedOutApp],
      [500, brokenApp],
    ] as const) {
      const run = new Conformance(checker, inProcess(faulty));
      for (const op of checker.operations()) {
        if (authOperation(op) || !checker.statuses(op.operationId).includes(status)) continue;
        const success = ready.successes.get(op.operationId);
        expect(success, `a successful call of ${op.operationId}`).toBeDefined();
        if (success) await run.call({ ...success, expect: status });
      }
      expect(run.failures).toEqual([]);
      expect(run.mismatches).toEqual([]);
      const others = new Set([200, 204, 304, 400, 401, 403, 404, 405, 409, 412, 413, 415, 429, 500, 503].filter((s) => s !== status));
      expect(run.unproduced(others, authOperation)).toEqual([]);
      expect(run.calls).toBeGreaterThan(0);
      if (status === 500) expect(logged).toHaveBeenCalledTimes(run.calls);
    }
    logged.mockRestore();
  });
});

/**
 * An auth route's request that reaches the store before anything can refuse it: a session cookie
 * (looked up by every route that reads the caller) and string fields that are well formed.
 */
const TOKEN_SHAPED = "a".repeat(43);

function storeBound(op: Operation, status: number): Call {
  const body = (op.spec.requestBody as { content: Record<string, { schema: { $ref?: string } }> } | undefined)?.content["application/json"]?.schema;
  const required = body && !body.$ref ? ((body as { required?: string[] }).required ?? []) : [];
  return {
    operationId: op.operationId,
    expect: status,
    path: op.path.replace(/\{[^}]+\}/g, "x"),
    headers: { cookie: `session=${TOKEN_SHAPED}` },
    // An address where one is asked for, elsewhere the shape of our random tokens (43 base64url characters).
    ...(body ? { body: Object.fromEntries(required.map((f) => [f, f === "email" ? "someone@example.com" : TOKEN_SHAPED])) } : {}),
  };
}

/**
 * Auth routes whose request is refused before any store access unless it carries a token that
 * only a mail or the identity provider issues (a recovery token, an ID token): e2e covers them in
 * success and refusal, their 429/503/500 are not produced.
 */
const TOKEN_FIRST = new Set(["Auth.Password.Recover", "Auth.Idp.Token"]);

function failing(store: MemoryRepository, error: () => Error): MemoryRepository {
  for (const name of ["get", "getMany", "create", "replace", "patch", "delete", "list", "findByField"] as const) {
    (store as unknown as Record<string, unknown>)[name] = () => Promise.reject(error());
  }
  return store;
}
