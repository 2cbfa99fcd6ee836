import { describe, expect, it } from "vitest";
import { errorResponse } from "./errors.ts";
import { Router, type Routable } from "./router.ts";

const r = (method: string, path: string): Routable => ({ method, path });

/** The HTTP answer a refusal of the router becomes (errorResponse, as every face maps it). */
function refusal(router: Router<Routable>, method: string, path: string, routeKey?: string) {
  try {
    router.find(method, path, routeKey);
  } catch (error) {
    const answer = errorResponse(error, "req-1");
    return { status: answer.statusCode, allow: answer.headers.allow, body: JSON.parse(answer.body ?? "null") as unknown };
  }
  throw new Error(`${method} ${path} matched`);
}

const found = (router: Router<Routable>, method: string, path: string, routeKey?: string) => {
  const { route, params } = router.find(method, path, routeKey);
  return { route: `${route.method} ${route.path}`, params };
};

describe("the HTTP router (REST and auth routes)", () => {
  it("prefers a literal segment over a parameter, whatever the order the routes are declared in", () => {
    for (const routes of [
      [r("PUT", "/invoices/{number}"), r("PUT", "/invoices/summary")],
      [r("PUT", "/invoices/summary"), r("PUT", "/invoices/{number}")],
    ]) {
      const router = new Router(routes);
      expect(found(router, "PUT", "/invoices/summary")).toEqual({ route: "PUT /invoices/summary", params: {} });
      expect(found(router, "PUT", "/invoices/12")).toEqual({ route: "PUT /invoices/{number}", params: { number: "12" } });
    }
  });

  it("decides at the first segment where two fitting routes differ, not by counting literals", () => {
    const router = new Router([r("GET", "/{x}/b/c"), r("GET", "/a/{y}/{z}"), r("GET", "/a/b/{w}")]);
    expect(found(router, "GET", "/a/b/c").route).toBe("GET /a/b/{w}");
    expect(found(router, "GET", "/a/q/c").route).toBe("GET /a/{y}/{z}");
    expect(found(router, "GET", "/q/b/c").route).toBe("GET /{x}/b/c");
  });

  it("refuses, when built, two routes of one method that fit the same paths", () => {
    expect(() => new Router([r("DELETE", "/auth/idents/{ident}"), r("DELETE", "/auth/idents/{id}")])).toThrow(
      "routes DELETE /auth/idents/{ident} and DELETE /auth/idents/{id} fit the same paths",
    );
    expect(() => new Router([r("GET", "/auth/idents/{ident}"), r("DELETE", "/auth/idents/{id}")])).not.toThrow();
  });

  it("decodes each parameter exactly once, within its segment, and never matches an empty one", () => {
    const router = new Router([r("GET", "/posttags/{post}/{tag}"), r("PUT", "/posts/{slug}/publish"), r("PUT", "/posts/{slug}")]);
    expect(found(router, "GET", "/posttags/c%252B%252B/a%2Fb").params).toEqual({ post: "c%2B%2B", tag: "a/b" });
    expect(found(router, "GET", "/posttags/%C3%A9t%C3%A9/x").params).toEqual({ post: "été", tag: "x" });
    // An empty segment is no slug: not `PUT /posts/{slug}` with slug "publish".
    expect(refusal(router, "PUT", "/posts//publish").status).toBe(404);
    expect(refusal(router, "GET", "/posttags//x").status).toBe(404);
  });

  it("ignores one trailing slash, no more", () => {
    const router = new Router([r("GET", "/posts"), r("GET", "/posts/{slug}"), r("GET", "/")]);
    expect(found(router, "GET", "/posts/").route).toBe("GET /posts");
    expect(found(router, "GET", "/posts/hello/").params).toEqual({ slug: "hello" });
    expect(found(router, "GET", "/").route).toBe("GET /");
    expect(refusal(router, "GET", "/posts//").status).toBe(404);
  });

  it("compares literal segments as sent: an encoded literal is another path", () => {
    const router = new Router([r("GET", "/auth/me")]);
    expect(refusal(router, "GET", "/auth/%6De").status).toBe(404);
    expect(refusal(router, "GET", "/Auth/me").status).toBe(404);
  });

  it("answers a known path's other method with 405 naming every method it has, this function's and others', else 404", () => {
    const router = new Router(
      [r("GET", "/posts/{slug}"), r("PUT", "/posts/{slug}"), r("PUT", "/posts/{slug}/publish")],
      [r("POST", "/auth/refresh"), r("DELETE", "/auth/idents/{ident}"), r("GET", "/posts/{slug}")],
    );
    expect(refusal(router, "POST", "/posts/hello")).toEqual({
      status: 405,
      allow: "GET, PUT",
      body: { code: 405, message: "Method not allowed" },
    });
    expect(refusal(router, "GET", "/auth/refresh")).toMatchObject({ status: 405, allow: "POST" });
    expect(refusal(router, "GET", "/auth/idents/a%40b.c%3Aemail")).toMatchObject({ status: 405, allow: "DELETE" });
    expect(refusal(router, "GET", "/auth/refresh/more")).toEqual({
      status: 404,
      allow: undefined,
      body: { code: 404, message: "No route for GET /auth/refresh/more" },
    });
    // Methods are matched exactly: HEAD is not GET.
    expect(refusal(router, "HEAD", "/posts/hello")).toMatchObject({ status: 405 });
  });

  it("takes API Gateway's route key when it names one of its routes, else matches the path", () => {
    const router = new Router([r("GET", "/posts/{slug}"), r("GET", "/posts/featured")]);
    // API Gateway chose the parameter route (its own precedence): the router does not second-guess it.
    expect(found(router, "GET", "/posts/featured", "GET /posts/{slug}")).toEqual({ route: "GET /posts/{slug}", params: { slug: "featured" } });
    expect(found(router, "GET", "/posts/featured", "$default").route).toBe("GET /posts/featured");
    // A route key whose template the path does not fit (a stage prefix left in): matched by path.
    expect(found(router, "GET", "/posts/featured", "GET /posts/{slug}/x").route).toBe("GET /posts/featured");
  });

  it("answers a parameter that is not valid percent-encoding with a 400 naming it, by route key or by path, before the route runs", () => {
    const router = new Router([r("GET", "/posts/{slug}"), r("DELETE", "/auth/idents/{ident}"), r("GET", "/auth/me")]);
    const bad = {
      status: 400,
      allow: undefined,
      body: { code: 400, message: "Malformed percent-encoding in the path", errors: [{ path: "/slug", message: "is not valid percent-encoding" }] },
    };
    for (const path of ["/posts/%E0%A4%A", "/posts/%", "/posts/100%25%zz", "/posts/%C0%80"]) {
      expect(refusal(router, "GET", path)).toEqual(bad);
      expect(refusal(router, "GET", path, "GET /posts/{slug}")).toEqual(bad);
    }
    expect(refusal(router, "DELETE", "/auth/idents/%E0%A4%A")).toMatchObject({ status: 400, body: { errors: [{ path: "/ident" }] } });
    // Routing comes first: a path no route fits is a 404, another method a 405, whatever its encoding.
    expect(refusal(router, "GET", "/auth/%E0%A4%A/me")).toMatchObject({ status: 404 });
    expect(refusal(router, "PUT", "/posts/%E0%A4%A")).toMatchObject({ status: 405, allow: "GET" });
  });
});
