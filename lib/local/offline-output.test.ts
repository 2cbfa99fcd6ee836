import { describe, expect, it } from "vitest";
import { offlineOutputFilter } from "./offline-output.ts";

const START = [
  "Starting Offline at stage local (us-east-1)",
  "",
  "Offline [http for lambda] listening on http://127.0.0.1:3002",
  "route '$connect (λ: ws)'",
  "Function names exposed for local invocation by aws-sdk:",
  "           * rest-post-create: shop-local-rest-post-create",
  "           * graphql: shop-local-graphql",
  "",
  "   ┌──────────────────────────────────────────────────────┐",
  "   │                                                      │",
  "   │   POST | http://127.0.0.1:3000/posts                 │",
  "   │   POST | http://127.0.0.1:3000/2015-03-31/functions/rest-post-create/invocations │",
  "   └──────────────────────────────────────────────────────┘",
  "",
  "Server ready: http://127.0.0.1:3000 🚀",
  "",
  "",
];
const REQUEST = [
  "POST /posts (λ: rest-post-create)",
  "audit: signed in user=u provider=idp",
  "INFO  request requestId=r method=POST path=/posts function=rest route=POST /posts status=200 durationMs=12.1 dynamodbCalls=2",
  "METRIC POST /posts 200 12ms dynamodb=2 rcu=0.5 wcu=1",
  "(λ: rest-post-create) RequestId: 3f2a1c7e-1111-4c1e-9a43-6f1c2f0a0001  Duration: 35.21 ms  Billed Duration: 36 ms",
  "\u001b[90mGET /posts/{slug} (λ: rest-post-get)\u001b[39m",
];

describe("offlineOutputFilter", () => {
  it("keeps one line per request (the handler's request line) and what the handlers log, dropping offline's two and METRIC", () => {
    const keep = offlineOutputFilter({ routes: false });
    expect(REQUEST.filter(keep)).toEqual([
      "audit: signed in user=u provider=idp",
      "INFO  request requestId=r method=POST path=/posts function=rest route=POST /posts status=200 durationMs=12.1 dynamodbCalls=2",
    ]);
  });

  it("hides the route table and the function list unless asked for, keeping offline's other lines", () => {
    const quiet = offlineOutputFilter({ routes: false });
    expect(START.filter(quiet)).toEqual([
      "Starting Offline at stage local (us-east-1)",
      "",
      "Offline [http for lambda] listening on http://127.0.0.1:3002",
      "",
      "Server ready: http://127.0.0.1:3000 🚀",
      "",
    ]);
    const routes = offlineOutputFilter({ routes: true });
    expect(START.filter(routes)).toEqual(START.slice(0, -1));
    expect(REQUEST.filter(routes)).toHaveLength(2);
  });
});
