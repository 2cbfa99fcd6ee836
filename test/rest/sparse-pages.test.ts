import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { Model, type Action, type Decision, type ListLimits } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { graphqlHandler } from "../../lib/graphql/handler.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { as } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";
import { call, httpEvent } from "../support/http-events.ts";

/** 200 readings, one in 100 tagged "x": with a read budget of 40, most pages of `tag = 'x'` are empty. */
class Sparse extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String(), n: Type.Integer(), tag: Type.String() });
  static override readonly limits: ListLimits = { default: 10, max: 100, maxRead: 40 };
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

async function sparseApp(): Promise<Application> {
  const app = new Application({ name: "sparse", version: "0", models: [Sparse], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
  const info = app.model("Sparse") as ModelInfo;
  for (let n = 0; n < 200; n++) await app.domain.create(as(), info, { id: `s${String(n).padStart(3, "0")}`, n, tag: n % 100 === 7 ? "x" : "y" });
  return app;
}

interface Listing {
  results: { id: string }[];
  continuationToken: string | null;
  scanned: number;
}

describe("a sparse filter's pages say how much they examined", () => {
  it("REST: empty pages carry a token and `scanned`; the loop a client writes ends on a null token with every match", async () => {
    const rest = restHandler(await sparseApp());
    const found: string[] = [];
    const scanned: number[] = [];
    let empty = 0;
    let token: string | null = null;
    // The loop the docs show: follow the token until it is null, whatever the page holds.
    do {
      const answer = await call(
        rest,
        httpEvent("PUT", "/sparses", { routeKey: "PUT /sparses", body: { q: "tag = 'x'", limit: 10, ...(token ? { continuationToken: token } : {}) } }),
      );
      expect(answer.statusCode).toBe(200);
      const page = answer.body as Listing;
      found.push(...page.results.map((r) => r.id));
      scanned.push(page.scanned);
      if (page.results.length === 0 && page.continuationToken) empty++;
      token = page.continuationToken;
    } while (token);
    expect(found).toEqual(["s007", "s107"]);
    // A client that stopped at the first empty page would have missed matches.
    expect(empty).toBeGreaterThan(0);
    expect(scanned.every((s) => s > 0 && s <= 40)).toBe(true);
    expect(scanned.reduce((a, b) => a + b, 0)).toBe(200);
  });

  it("GraphQL: `scanned` on the results type, the same figures", async () => {
    const app = await sparseApp();
    const graphql = graphqlHandler(app);
    const answer = await call(
      graphql,
      httpEvent("POST", "/graphql", { body: { query: `{ Sparses(query: "tag = 'x'", limit: 10) { results { id } continuationToken scanned } }` } }),
    );
    const body = answer.body as { data?: { Sparses: Listing }; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    expect(body.data?.Sparses.results).toEqual([{ id: "s007" }]);
    expect(body.data?.Sparses.scanned).toBe(40);
    expect(body.data?.Sparses.continuationToken).toEqual(expect.any(String));
  });
});
