/** Where the GraphiQL function answers; the GraphQL function redirects browsers there. */
export const GRAPHIQL_PATH = "/graphiql";
