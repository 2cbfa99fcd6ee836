import type { Application } from "../core/application.ts";
import { pluralName } from "./names.ts";
import { graphqlOptions } from "./service.ts";

/**
 * What GraphiQL opens with when the browser has nothing saved: the application's own document (the
 * GraphQL service's `graphiqlDocument` option), else a list of its first model's records. Headers
 * are never persisted by GraphiQL here (shouldPersistHeaders false), so a pasted token leaves with the tab.
 */
export function defaultDocument(app: Application): string {
  const configured = graphqlOptions(app).graphiqlDocument;
  if (configured !== undefined) return configured;
  const models = app.models();
  const info = models.find((m) => !m.cls.identity) ?? models[0];
  const intro = `# The ${app.name} GraphQL API. Run the query with the play button (or Ctrl-Enter).
# The schema is in the Docs panel on the left.
`;
  if (!info) return intro;
  const properties = info.outputSchema.properties as Record<string, { type?: unknown }>;
  // Plain fields every caller may read: a restricted one (fieldReaders) would be null for most.
  const scalars = Object.keys(properties).filter(
    (name) => ["string", "number", "integer", "boolean"].includes(String(properties[name]?.type)) && !info.restrictedFields.includes(name),
  );
  const fields = [...new Set([...info.keyFields, ...scalars])].slice(0, 6);
  return `${intro}
query ${pluralName(info)} {
  ${pluralName(info)}(limit: 10) {
    results {
${fields.map((field) => `      ${field}`).join("\n")}
    }
    continuationToken
  }
}

# Writing needs a signed-in user: log in, then paste the access token in the Headers tab below as
#   { "Authorization": "Bearer <ACCESS_TOKEN>" }
`;
}

/** Renders GraphiQL against the endpoint next to the page; `?query=` and `?variables=` pre-fill it. */
export const bootScript = (document: string): string => `(function () {
  var params = new URLSearchParams(window.location.search);
  var props = {
    fetcher: GraphiQL.createFetcher({ url: new URL("graphql", window.location.href).toString() }),
    defaultQuery: ${JSON.stringify(document)},
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: "headers",
    shouldPersistHeaders: false
  };
  if (params.get("query")) props.query = params.get("query");
  if (params.get("variables")) props.variables = params.get("variables");
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(GraphiQL, props));
})();
`;

/** The page, naming each asset by its content-hashed URL (relative to /graphiql/). */
export function graphiqlPage(urls: { css: string; react: string; reactDom: string; graphiql: string; boot: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="${urls.css}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${urls.react}"></script>
<script src="${urls.reactDom}"></script>
<script src="${urls.graphiql}"></script>
<script src="${urls.boot}"></script>
</body>
</html>
`;
}
