/**
 * What GraphiQL opens with when the browser has nothing saved: a query that works anonymously
 * against the sample blog, and a mutation to try once signed in. Headers are never persisted by
 * GraphiQL here (shouldPersistHeaders false), so a pasted token leaves with the tab.
 */
export const DEFAULT_DOCUMENT = `# The blog's GraphQL API. Run the query with the play button (or Ctrl-Enter).
# The schema is in the Docs panel on the left; subscriptions ride ws://127.0.0.1:3001 locally.

query PublishedPosts {
  Posts(query: "status = 'published' ORDER BY createdAt DESC", limit: 10) {
    results {
      slug
      title
      createdAt
      author { username name }
      tags { slug name color }
    }
    continuationToken
  }
}

# Writing needs a signed-in user: log in, then paste the access token in the Headers tab below as
#   { "Authorization": "Bearer <ACCESS_TOKEN>" }
# and uncomment:
#
# mutation CreatePost {
#   createPost(Post: { slug: "hello-graphiql", title: "Hello from GraphiQL", content: "Written in GraphiQL.", status: "published" }) {
#     slug
#     author { username }
#   }
# }
`;

/** Renders GraphiQL against the endpoint next to the page; `?query=` and `?variables=` pre-fill it. */
export const BOOT_SCRIPT = `(function () {
  var params = new URLSearchParams(window.location.search);
  var props = {
    fetcher: GraphiQL.createFetcher({ url: new URL("graphql", window.location.href).toString() }),
    defaultQuery: ${JSON.stringify(DEFAULT_DOCUMENT)},
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
