import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model, type Action, type Decision } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { Service } from "../../lib/core/service.ts";
import { estimatedResources, serverlessFunctions } from "../../lib/rest/functions.ts";
import { openApiDocument } from "../../lib/rest/openapi.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { blog } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

/** A second application, nothing like the blog: a numeric key, a 2-field key, static and GET operations. */
class Invoice extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["number"] as const;
  static override readonly schema = Type.Object({ number: Type.Integer(), total: Type.Number() });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
  @Operation({ rest: { method: "GET" } })
  async pdf(): Promise<string> {
    return "pdf";
  }
  @Operation({ rest: { method: "POST", path: "/billing/run" } })
  static async runBilling(): Promise<number> {
    return 1;
  }
  @Operation()
  static async summary(): Promise<number> {
    return 0;
  }
  @Operation({ rest: false })
  async internal(): Promise<void> {}
}
class LineItem extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["invoice", "line"] as const;
  static override readonly schema = Type.Object({ invoice: Type.Integer(), line: Type.Integer(), label: Type.String() });
}
class Clock extends Service {
  static override readonly type = "Clock";
  @Operation({ rest: { method: "GET" } })
  async now(): Promise<string> {
    return "";
  }
}

const shop = new Application(
  { name: "shop", version: "2.0.0", models: [Invoice, LineItem], serviceTypes: [Clock], services: { clock: { type: "Clock" } } },
  inProcess,
);

describe("route derivation", () => {
  it("derives every route of a synthetic application from its registry", () => {
    const keys = deriveRoutes(shop).map((r) => r.key);
    expect(keys).toEqual([
      "POST /invoices",
      "PUT /invoices",
      "GET /invoices/{number}",
      "PUT /invoices/{number}",
      "PATCH /invoices/{number}",
      "DELETE /invoices/{number}",
      "GET /invoices/{number}/pdf",
      "POST /billing/run",
      "PUT /invoices/summary",
      "POST /lineitems",
      "PUT /lineitems",
      "GET /lineitems/{invoice}/{line}",
      "PUT /lineitems/{invoice}/{line}",
      "PATCH /lineitems/{invoice}/{line}",
      "DELETE /lineitems/{invoice}/{line}",
      "GET /clock/now",
      "GET /openapi.json",
    ]);
  });

  it("derives the blog's routes with real key names, never a literal uuid for slug-keyed models", () => {
    const keys = deriveRoutes(blog()).map((r) => r.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        "GET /posts/{slug}",
        "PUT /posts/{slug}/publish",
        "GET /users/{uuid}",
        "GET /posttags/{post}/{tag}",
        "DELETE /userfollows/{follower}/{following}",
        "GET /version",
        "PUT /publisher/publish",
        "PUT /publisher/publishpost",
        "PUT /testbean/testoperation",
      ]),
    );
    expect(keys.filter((k) => k.startsWith("GET /posts/{uuid}"))).toEqual([]);
  });

  it("refuses two operations that would share a route", () => {
    class Clash extends Model {
      static override readonly schema = Type.Object({ uuid: Type.String() });
      @Operation({ rest: { method: "POST", path: "/clash" } }) static async a(): Promise<void> {}
      @Operation({ rest: { method: "POST", path: "/clashes" } }) static async b(): Promise<void> {}
    }
    expect(() => deriveRoutes(new Application({ name: "c", version: "1", models: [Clash], serviceTypes: [], services: {} }, inProcess))).toThrow(
      /REST routes clash: POST \/clashes/,
    );
  });

  it("groups functions per route, per model or into one, always with one API route per derived route", () => {
    const routes = deriveRoutes(shop);
    for (const packaging of ["route", "model", "single"] as const) {
      const functions = serverlessFunctions(routes, { packaging });
      const events = Object.values(functions)
        .flatMap((f) => f.events)
        .filter((e) => e.httpApi !== "*");
      expect(events).toHaveLength(routes.length);
      expect(Object.values(functions).some((f) => f.events.some((e) => e.httpApi === "*"))).toBe(true);
    }
    expect(Object.keys(serverlessFunctions(routes, { packaging: "model" })).sort()).toEqual([
      "rest-clock",
      "rest-fallback",
      "rest-invoice",
      "rest-lineitem",
      "rest-openapi",
    ]);
    expect(Object.keys(serverlessFunctions(routes, { packaging: "single" }))).toEqual(["rest"]);
    expect(estimatedResources(serverlessFunctions(routes, { packaging: "single" }))).toBeLessThan(estimatedResources(serverlessFunctions(routes)));
  });

  it("produces an OpenAPI 3.1 document a standard validator accepts", async () => {
    for (const application of [shop, blog()]) {
      const document = openApiDocument(application, deriveRoutes(application));
      const result = await new Validator().validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    }
    const blogDoc = openApiDocument(blog(), deriveRoutes(blog())) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(blogDoc.paths["/posts/{slug}"] ?? {}).sort()).toEqual(["delete", "get", "patch", "put"]);
  });
});
