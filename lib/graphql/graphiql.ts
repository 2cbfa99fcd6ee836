import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Application } from "../core/application.ts";
import { httpHandler } from "../http/handler.ts";
import type { HttpRequest } from "../http/request.ts";
import { json, type HttpResponse } from "../http/response.ts";
import { GRAPHIQL_PATH } from "./graphiql-paths.ts";
import { graphqlOptions } from "./service.ts";

/**
 * GraphiQL's own UMD builds from npm, read from node_modules: no CDN, so the page works offline.
 * serverless.yml packages exactly these files with the GraphiQL function (package.patterns), which
 * keeps them out of the GraphQL function's bundle.
 */
export const GRAPHIQL_FILES = {
  "graphiql.js": { file: "graphiql/graphiql.min.js", type: "text/javascript" },
  "graphiql.css": { file: "graphiql/graphiql.min.css", type: "text/css" },
  "react.js": { file: "react/umd/react.production.min.js", type: "text/javascript" },
  "react-dom.js": { file: "react-dom/umd/react-dom.production.min.js", type: "text/javascript" },
} as const;

type AssetName = keyof typeof GRAPHIQL_FILES | "app.js";

/** Renders GraphiQL against the endpoint next to the page; `?query=` pre-fills the editor. */
const BOOT = `(function () {
  var params = new URLSearchParams(window.location.search);
  var props = { fetcher: GraphiQL.createFetcher({ url: new URL("graphql", window.location.href).toString() }) };
  if (params.get("query")) props.query = params.get("query");
  if (params.get("variables")) props.variables = params.get("variables");
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, props));
})();
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="graphiql/graphiql.css">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="graphiql/react.js"></script>
<script src="graphiql/react-dom.js"></script>
<script src="graphiql/graphiql.js"></script>
<script src="graphiql/app.js"></script>
</body>
</html>
`;

/** The first `node_modules/<file>` found walking up from here (the project, or Lambda's task root). */
function locate(file: string): string {
  const starts = [dirname(fileURLToPath(import.meta.url)), process.env.LAMBDA_TASK_ROOT, process.cwd()].filter((d): d is string => Boolean(d));
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", file);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error(`GraphiQL asset node_modules/${file} is missing: install dependencies, or package it with the function`);
}

const loaded = new Map<AssetName, string>();

function asset(name: AssetName): string {
  let text = loaded.get(name);
  if (text === undefined) {
    text = name === "app.js" ? BOOT : readFileSync(locate(GRAPHIQL_FILES[name].file), "utf8");
    loaded.set(name, text);
  }
  return text;
}

function isAsset(name: string): name is AssetName {
  return name === "app.js" || name in GRAPHIQL_FILES;
}

/** GET /graphiql (the page) and GET /graphiql/<asset>; 404 when `exposeGraphiQL` is false. */
export function serveGraphiQL(request: HttpRequest, exposed: boolean): HttpResponse {
  if (!exposed) return json(404, { code: 404, message: "GraphiQL is not exposed" });
  if (request.method !== "GET" && request.method !== "HEAD") return json(405, { code: 405, message: "Method not allowed" }, { allow: "GET" });
  const path = request.path.replace(/\/+$/, "");
  if (path === GRAPHIQL_PATH) {
    return { statusCode: 200, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" }, body: PAGE };
  }
  const name = path.startsWith(`${GRAPHIQL_PATH}/`) ? path.slice(GRAPHIQL_PATH.length + 1) : "";
  if (!isAsset(name)) return json(404, { code: 404, message: "Not found" });
  const type = name === "app.js" ? "text/javascript" : GRAPHIQL_FILES[name].type;
  return { statusCode: 200, headers: { "content-type": `${type}; charset=utf-8`, "cache-control": "public, max-age=86400" }, body: asset(name) };
}

export function graphiqlHandler(app: Application) {
  const { exposeGraphiQL } = graphqlOptions(app);
  return httpHandler("graphiql", async (request) => serveGraphiQL(request, exposeGraphiQL));
}
