import type { Application } from "../core/application.ts";
import { chooseCoding } from "../http/encoding.ts";
import { httpHandler } from "../http/handler.ts";
import type { HttpRequest } from "../http/request.ts";
import { json, type HttpResponse } from "../http/response.ts";
import { encoded, graphiqlAssets } from "./graphiql-assets.ts";
import { defaultDocument, graphiqlPage } from "./graphiql-page.ts";
import { GRAPHIQL_PATH } from "./graphiql-paths.ts";
import { graphqlOptions } from "./service.ts";

/** Content-hashed URLs never change meaning: a year, and no revalidation. */
const IMMUTABLE = "public, max-age=31536000, immutable";

const pages = new Map<string, string>();

function renderPage(document: string): string {
  let page = pages.get(document);
  if (page === undefined) {
    const { byId } = graphiqlAssets(document);
    const url = (id: keyof typeof byId): string => `graphiql/${byId[id].fileName}`;
    page = graphiqlPage({ css: url("css"), react: url("react"), reactDom: url("reactDom"), graphiql: url("graphiql"), boot: url("boot") });
    pages.set(document, page);
  }
  return page;
}

/**
 * GET /graphiql (the page, revalidated on every visit so it always names the current assets) and
 * GET /graphiql/<name>.<hash>.<ext> (the assets: compressed by Accept-Encoding, cached forever).
 * 404 when `exposeGraphiQL` is false, and for any other name, an old hash included.
 */
export async function serveGraphiQL(request: HttpRequest, exposed: boolean, document = ""): Promise<HttpResponse> {
  if (!exposed) return json(404, { code: 404, message: "GraphiQL is not exposed" });
  if (request.method !== "GET" && request.method !== "HEAD") return json(405, { code: 405, message: "Method not allowed" }, { allow: "GET" });
  const path = request.path.replace(/\/+$/, "");
  if (path === GRAPHIQL_PATH) {
    return { statusCode: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" }, body: renderPage(document) };
  }
  const name = path.startsWith(`${GRAPHIQL_PATH}/`) ? path.slice(GRAPHIQL_PATH.length + 1) : "";
  const asset = graphiqlAssets(document).byFileName.get(name);
  if (!asset) return json(404, { code: 404, message: "Not found" });
  const headers: Record<string, string> = { "content-type": `${asset.type}; charset=utf-8`, "cache-control": IMMUTABLE, vary: "accept-encoding" };
  const coding = chooseCoding(request.headers["accept-encoding"]);
  if (coding === "identity") return { statusCode: 200, headers, body: asset.body.toString("utf8") };
  const body = await encoded(asset, coding);
  return { statusCode: 200, headers: { ...headers, "content-encoding": coding }, body: body.toString("base64"), isBase64Encoded: true };
}

export function graphiqlHandler(app: Application) {
  const { exposeGraphiQL } = graphqlOptions(app);
  const document = defaultDocument(app);
  return httpHandler("graphiql", (request) => serveGraphiQL(request, exposeGraphiQL, document));
}
