import { Hono } from "hono";
import { handle } from "hono/aws-lambda";
import type { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { DomainError } from "../../lib/core/errors.ts";
import { etagOf } from "../../lib/rest/etag.ts";

/**
 * The REST peer: hono's Lambda adapter on the same two routes, calling the same domain
 * operations, so the difference is the HTTP layer alone.
 */
export function honoRest(app: Application) {
  const info = app.model("Post");
  if (!info) throw new Error("no Post model");
  const api = new Hono();
  api.get("/posts/:slug", async (c) => {
    const result = await app.domain.get(new Context({ requestId: "hono" }), info, { slug: c.req.param("slug") });
    return c.json(result.data, 200, { etag: etagOf(result.version, result.data) });
  });
  api.put("/posts", async (c) =>
    c.json(await app.domain.query(new Context({ requestId: "hono" }), info, (await c.req.json()) as { q: string; limit?: number })),
  );
  api.onError((error, c) => (error instanceof DomainError ? c.json(error.toJSON(), error.status as 400) : c.json({ message: "Internal error" }, 500)));
  return handle(api);
}
