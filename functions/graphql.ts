import { app } from "../app/index.ts";
import { graphqlHandler } from "../lib/graphql/handler.ts";
import { storeFromEnv } from "../lib/store/select.ts";

// Module scope runs once per cold start: the executable schema and the document cache are built
// here and shared by every request this instance serves.
app.useStore(storeFromEnv());

export const handler = graphqlHandler(app);
