import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { ThrottledError } from "../../lib/core/errors.ts";
import { log } from "../../lib/core/log.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { openApiDocument } from "../../lib/rest/openapi.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import type { Application } from "../../lib/core/application.ts";
import { blog } from "../support/blog.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";
import { BLOG_CASES } from "../support/openapi/blog-cases.ts";
import { Conformance, type Transport } from "../support/openapi/conformance.ts";
import { ContractChecker } from "../support/openapi/contract.ts";
import { exerciseAll } from "../support/openapi/plan.ts";

beforeAll(() => {
  process.env.IS_OFFLINE = "true";
  process.env.ALLOW_TEST_USER = "true";
});
afterAll(() => {
  delete process.env.IS_OFFLINE;
  delete process.env.ALLOW_TEST_USER;
});

function inProcess(application: Application): Transport {
  const handler = restHandler(application);
  return async (method, path, headers, body) => {
    const event = httpEvent(method, path, { headers, ...(body !== undefined ? { rawBody: body } : {}) });
    const result = (await handler(event, lambdaContext())) as APIGatewayProxyStructuredResultV2;
    const lower = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    return { status: result.statusCode ?? 200, headers: lower, bodyText: result.body ?? "" };
  };
}

const app = blog();
const document = openApiDocument(app, deriveRoutes(app));

// Off until its plan knows two things that landed beside it (issue 17 stays open for them): children
// whose create/read needs a readable parent (Comment, PostTag: the plan must create the parent
// first), and the auth routes, whose function answers 404 instead of 405 for a wrong method.
describe.skip("OpenAPI conformance in process (memory store; the e2e suite runs the same plan on npm start)", () => {
  it("every operation's answers, successes and failures, match the document", async () => {
    const transport = inProcess(blog());
    const run = new Conformance(new ContractChecker(document), transport);
    await exerciseAll(run, app, BLOG_CASES, (method, path) => transport(method, path, {}, undefined));
    expect(run.failures).toEqual([]);
    expect(run.mismatches).toEqual([]);
    expect(run.unproduced(new Set([429, 500]))).toEqual([]);
    // The same answers against a document that forgot one status: the plan sent that variant anyway.
    const drifted = structuredClone(document) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    delete drifted.paths["/users/{uuid}"]?.put?.responses["413"];
    expect(run.recheck(new ContractChecker(drifted as unknown as Record<string, unknown>))).toEqual([expect.stringMatching(/^User.update 413: status not listed/)]);
  });

  it("a throttled database (429 with Retry-After) and an internal error (500) match the document on every operation listing them", async () => {
    const checker = new ContractChecker(document);
    const healthy = inProcess(blog());
    const ready = new Conformance(checker, healthy);
    await exerciseAll(ready, app, BLOG_CASES, (method, path) => healthy(method, path, {}, undefined));
    // Fault injection: DynamoDB still throttling after the SDK's retries; any unexpected error below the face.
    const throttledApp = blog((_model, table) => failing(new MemoryRepository(table), () => new ThrottledError(2)));
    const brokenApp = blog();
    for (const name of ["create", "get", "update", "patch", "delete", "query", "invoke", "invokeService"] as const) {
      (brokenApp.domain as unknown as Record<string, unknown>)[name] = () => Promise.reject(new Error("disk on fire"));
    }
    // Each 500 logs its cause under the request id; kept out of the test output, counted instead.
    const logged = vi.spyOn(log, "error").mockImplementation(() => undefined);
    for (const [status, faulty] of [[429, throttledApp], [500, brokenApp]] as const) {
      const run = new Conformance(checker, inProcess(faulty));
      for (const op of checker.operations()) {
        if (!checker.statuses(op.operationId).includes(status)) continue;
        const success = ready.successes.get(op.operationId);
        expect(success, `a successful call of ${op.operationId}`).toBeDefined();
        if (success) await run.call({ ...success, expect: status });
      }
      expect(run.failures).toEqual([]);
      expect(run.mismatches).toEqual([]);
      const others = new Set([200, 204, 304, 400, 401, 403, 404, 405, 409, 412, 413, 415, 429, 500].filter((s) => s !== status));
      expect(run.unproduced(others)).toEqual([]);
      expect(run.calls).toBeGreaterThan(0);
      if (status === 500) expect(logged).toHaveBeenCalledTimes(run.calls);
    }
    logged.mockRestore();
  });
});

function failing(store: MemoryRepository, error: () => Error): MemoryRepository {
  for (const name of ["get", "getMany", "create", "replace", "patch", "delete", "list", "findByField"] as const) {
    (store as unknown as Record<string, unknown>)[name] = () => Promise.reject(error());
  }
  return store;
}
