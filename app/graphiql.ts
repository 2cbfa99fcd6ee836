/**
 * What GraphiQL opens with (the GraphQL service's `graphiqlDocument`): a query that works
 * anonymously against the blog, and a mutation to try once signed in.
 */
export const GRAPHIQL_DOCUMENT = `# The blog's GraphQL API. Run the query with the play button (or Ctrl-Enter).
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
