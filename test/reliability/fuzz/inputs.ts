import fc from "fast-check";

/**
 * The fuzzer's input classes. Each class is a fast-check arbitrary of requests; the runner samples
 * them with one seed per run. To add a class, add one entry to REST_CLASSES, GRAPHQL_CLASSES or
 * WS_CLASSES; the credential classes (credentials.ts) are built once a real account exists.
 */
export interface RestRequest {
  kind: "rest";
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Sent with an invalid credential: the answer must neither name this user nor accept a write. */
  refuseUser?: string;
}
export interface GraphqlRequest {
  kind: "graphql";
  /** The raw HTTP body (a JSON text, or not). */
  body: string;
  headers?: Record<string, string>;
  refuseUser?: string;
}
export interface WsSession {
  kind: "ws";
  /** Frames sent in order on one connection; each counts as one request. */
  frames: string[];
}
export type FuzzRequest = RestRequest | GraphqlRequest | WsSession;

/** Seeded records the fuzz may aim at, owned by the fuzz's user. */
export const SEED = { post: "fuzz-seed-post", tag: "fuzz-seed-tag" };
export const USER = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0affff";
/** A value no response may echo: where it shows up, a polluting key got through. */
export const MARKER = "polluted-9f1c2";

const user = { "x-test-user": USER };
const jsonHeaders = { "content-type": "application/json", ...user };

const validPost = fc.record({
  slug: fc.stringMatching(/^[a-z0-9-]{1,24}$/).map((s) => `fz-${s}`),
  title: fc.string({ maxLength: 40 }),
  content: fc.string({ maxLength: 80 }),
  status: fc.constantFrom("draft", "published", "archived"),
  viewCount: fc.nat(1000),
});

const anyJson = fc.jsonValue({ maxDepth: 3 });
const field = fc.constantFrom("slug", "title", "content", "status", "viewCount", "author", "createdAt", "updatedAt", "uuid", "email", "username");
const hostileKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "__version",
  "__owner",
  "__typename",
  "__",
  "hasOwnProperty",
  "toString",
  "valueOf",
);

/** A JSON text with `key` at `depth` (JSON.stringify would drop `__proto__`, so the text is built). */
function nestedText(key: string, depth: number, leaf: string): string {
  let inner = `{${JSON.stringify(key)}:${leaf}}`;
  for (let i = 0; i < depth; i++) inner = `{"spec":${inner},${JSON.stringify(key)}:${leaf}}`;
  return inner;
}

const writeTarget = fc.constantFrom(
  { method: "POST", path: "/posts" },
  { method: "PUT", path: `/posts/${SEED.post}` },
  { method: "PATCH", path: `/posts/${SEED.post}` },
  { method: "POST", path: "/tags" },
  { method: "PATCH", path: `/tags/${SEED.tag}` },
  { method: "PATCH", path: `/users/${USER}` },
  { method: "POST", path: "/comments" },
  { method: "POST", path: "/posttags" },
  { method: "PUT", path: "/testbean/testoperation" },
  { method: "PUT", path: `/posts/${SEED.post}/publish` },
);

const rest = (method: string, path: string, body?: string | Uint8Array, headers: Record<string, string> = jsonHeaders): RestRequest => ({
  kind: "rest",
  method,
  path,
  headers,
  ...(body !== undefined ? { body } : {}),
});

/** Query-language strings: pieces of the grammar and noise, so most parse partly and some fully. */
export const queryString = fc
  .array(
    fc.oneof(
      fc.constantFrom("status", "viewCount", "slug", "title", "author", "createdAt", "nope", "__version", "a.b"),
      fc.constantFrom(
        "=",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "LIKE",
        "IN",
        "AND",
        "OR",
        "NOT",
        "(",
        ")",
        "[",
        "]",
        ",",
        "ORDER BY",
        "DESC",
        "ASC",
        "LIMIT",
        "OFFSET",
        "CONTAINS",
      ),
      fc.constantFrom(
        "'published'",
        "'draft'",
        "'%a%'",
        "'\\'",
        "'",
        "1",
        "-1",
        "1e308",
        "NaN",
        "Infinity",
        "9007199254740993",
        "TRUE",
        "null",
        "'😀'",
        "'\ud800'",
      ),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(" "));

/**
 * Filters near and far past the width limits (200 terms, 100 OR branches, 1000 IN values): around
 * a limit some are answered and some refused; `huge` reaches the 61,000 ORs (about 850 KB) that took
 * 6-8 s of evaluation before the limits, each answered 400 now.
 */
const widths = (huge: boolean) =>
  fc
    .tuple(
      fc.constantFrom("or", "and", "in", "mixed"),
      huge ? fc.integer({ min: 5_000, max: 61_000 }) : fc.integer({ min: 50, max: 1_200 }),
      fc.constantFrom("slug", "viewCount", "title", "status"),
    )
    .map(([shape, n, f]) => {
      const value = (i: number) => (f === "viewCount" ? String(i) : `'v${i % 97}'`);
      const terms = (by: string, count: number) => Array.from({ length: count }, (_, i) => `${f} = ${value(i)}`).join(by);
      if (shape === "or") return terms(" OR ", n);
      if (shape === "and") return terms(" AND ", Math.min(n, 60_000));
      if (shape === "in") return `${f} IN [${Array.from({ length: n }, (_, i) => value(i)).join(", ")}]`;
      return `(${terms(" OR ", Math.ceil(n / 20))}) AND ${f} IN [${Array.from({ length: n }, (_, i) => value(i)).join(",")}]`;
    });
export const wideFilter = widths(false);
export const hugeFilter = widths(true);

const token = fc.oneof(
  fc.base64String({ maxLength: 200 }),
  fc.string({ maxLength: 60 }),
  fc.constantFrom("", "AAAA", "null", "{}", "e30", "x".repeat(5000), "%00", "../../etc/passwd"),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString("base64url")),
);

const badUtf8 = fc.oneof(
  fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80]),
  fc.uint8Array({ minLength: 1, maxLength: 8 }).map((a) => [...a]),
);

export const REST_CLASSES: Record<string, fc.Arbitrary<RestRequest>> = {
  "wrong types": fc
    .tuple(writeTarget, validPost, fc.array(fc.tuple(field, anyJson), { minLength: 1, maxLength: 4 }))
    .map(([t, body, swaps]) => rest(t.method, t.path, JSON.stringify({ ...body, ...Object.fromEntries(swaps) }))),
  "not an object": fc
    .tuple(
      writeTarget,
      anyJson.filter((v) => v === null || typeof v !== "object" || Array.isArray(v)),
    )
    .map(([t, v]) => rest(t.method, t.path, JSON.stringify(v))),
  "unknown fields": fc
    .tuple(writeTarget, validPost, fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), anyJson, { minKeys: 1, maxKeys: 4 }))
    .map(([t, body, extra]) => rest(t.method, t.path, JSON.stringify({ ...extra, ...body }))),
  "prototype pollution": fc.tuple(writeTarget, hostileKey, fc.nat(6), fc.boolean()).map(([t, key, depth, primitive]) => {
    const leaf = primitive ? JSON.stringify(MARKER) : `{"isAdmin":true,"polluted":${JSON.stringify(MARKER)},"author":"${USER}"}`;
    const nested = nestedText(key, depth, leaf);
    return rest(
      t.method,
      t.path,
      `{"slug":"fz-proto","title":"t","content":"c","status":"draft","viewCount":1,"spec":${nested},${JSON.stringify(key)}:${leaf}}`,
    );
  }),
  "deep nesting": fc
    .tuple(writeTarget, fc.integer({ min: 64, max: 20_000 }), fc.boolean())
    .map(([t, depth, arrays]) => rest(t.method, t.path, arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)),
  "huge and long": fc
    .tuple(writeTarget, fc.constantFrom(300_000, 1_100_000, 2_000_000), fc.constantFrom("value", "key", "body"))
    .map(([t, size, where]) =>
      rest(
        t.method,
        t.path,
        where === "value"
          ? JSON.stringify({ slug: "fz-long", title: "x".repeat(size), content: "c", status: "draft", viewCount: 1 })
          : where === "key"
            ? JSON.stringify({ ["k".repeat(Math.min(size, 200_000))]: 1, slug: "fz-longkey" })
            : " ".repeat(size),
      ),
    ),
  "over-long strings in keys and paths": fc
    .tuple(fc.integer({ min: 1025, max: 70_000 }), fc.constantFrom("GET", "PUT", "PATCH", "DELETE"))
    .map(([n, method]) =>
      rest(method, `/posts/${"a".repeat(n)}`, method === "GET" || method === "DELETE" ? undefined : JSON.stringify({ slug: "a".repeat(n), title: "t" })),
    ),
  "invalid UTF-8 and lone surrogates": fc.tuple(writeTarget, badUtf8, fc.boolean()).map(([t, bytes, surrogate]) => {
    if (surrogate)
      return rest(
        t.method,
        t.path,
        JSON.stringify({ slug: "fz-sur", title: "\ud800", content: "a\udc00b", status: "draft", viewCount: 1 }).replace("\\ud800", "\\ud800"),
      );
    const head = Buffer.from('{"slug":"fz-utf","title":"');
    return rest(t.method, t.path, new Uint8Array(Buffer.concat([head, Buffer.from(bytes), Buffer.from('","content":"c","status":"draft","viewCount":1}')])));
  }),
  "malformed JSON": fc
    .tuple(writeTarget, fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom("{", "[", '{"a":', "{'a':1}", "NaN", '{"a":1,}', "\u0000", '{"a":1}{"b":2}')))
    .map(([t, text]) => rest(t.method, t.path, text)),
  "wrong media type and headers": fc
    .tuple(
      writeTarget,
      validPost,
      fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/json; charset=latin1", "application/jsonx", ""),
      fc.string({ maxLength: 30 }),
    )
    .map(([t, body, type, ifMatch]) =>
      rest(t.method, t.path, JSON.stringify(body), { ...user, "content-type": type, "if-match": ifMatch.replace(/[^\x20-\x7e]/g, "") }),
    ),
  "query language": fc
    .tuple(queryString, fc.oneof(fc.constant(undefined), fc.integer({ min: -5, max: 5000 }), anyJson))
    .map(([q, limit]) => rest("PUT", "/posts", JSON.stringify(limit === undefined ? { q } : { q, limit }))),
  "wide filters": wideFilter.map((q) => rest("PUT", "/posts", JSON.stringify({ q }))),
  "huge filters": hugeFilter.map((q) => rest("PUT", "/posts", JSON.stringify({ q }))),
  "continuation tokens": fc
    .tuple(token, fc.constantFrom("", "status = 'published'", "LIMIT 2"))
    .map(([continuationToken, q]) => rest("PUT", "/posts", JSON.stringify({ q, continuationToken }))),
  "paths and methods": fc
    .tuple(
      fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"),
      fc.array(
        fc.oneof(
          fc.constantFrom(
            "posts",
            "users",
            "tags",
            "posttags",
            "comments",
            "version",
            "graphql",
            "..",
            "%2e%2e",
            "%00",
            "%ff",
            "%",
            "__proto__",
            "constructor",
            "$default",
            "{slug}",
          ),
          fc.string({ maxLength: 10 }).map(encodeURIComponent),
        ),
        { minLength: 1, maxLength: 4 },
      ),
    )
    .map(([method, segments]) => rest(method, `/${segments.join("/")}`, undefined, user)),
};

const graphql = (body: string, headers: Record<string, string> = jsonHeaders): GraphqlRequest => ({ kind: "graphql", body, headers });
const op = (query: string, variables?: unknown) => JSON.stringify(variables === undefined ? { query } : { query, variables });

export const GRAPHQL_CLASSES: Record<string, fc.Arbitrary<GraphqlRequest>> = {
  "broken documents": fc
    .oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom(
        "{",
        "{ Posts(",
        "query { Posts { results { slug } }",
        "mutation { createPost }",
        "subscription { Posts { type } }",
        "{ Post(slug: 1) { slug } }",
        "query Q($a: Int!) { versionVersion }",
        "{ ...F }",
        "fragment F on Query { versionVersion }",
      ),
    )
    .map((q) => graphql(op(q))),
  "oversized documents": fc.integer({ min: 20_000, max: 600_000 }).map((n) => graphql(op(`{ versionVersion ${"# pad\n".repeat(Math.ceil(n / 6))}}`))),
  "alias bombs": fc
    .tuple(fc.integer({ min: 50, max: 5000 }), fc.constantFrom("__typename", "versionVersion", "__schema { queryType { name } }", "Posts { results { slug } }"))
    .map(([n, f]) => graphql(op(`{ ${Array.from({ length: n }, (_, i) => `a${i}: ${f}`).join(" ")} }`))),
  "fragment bombs": fc.integer({ min: 2, max: 40 }).map((n) => {
    const frags = Array.from({ length: n }, (_, i) => `fragment F${i} on Query { versionVersion ${i + 1 < n ? `...F${i + 1} ...F${i + 1}` : ""} }`).join("\n");
    return graphql(op(`{ ...F0 }\n${frags}`));
  }),
  "fragment cycles": fc.constant(graphql(op("{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }"))),
  "introspection bombs": fc.integer({ min: 3, max: 30 }).map((depth) => {
    let inner = "name";
    for (let i = 0; i < depth; i++) inner = `name fields { type { ofType { ${inner} } } }`;
    return graphql(op(`{ __schema { types { ${inner} } } }`));
  }),
  "batched operations": fc
    .array(fc.constantFrom(op("{ versionVersion }"), op("{ __typename }"), "1", "null", "[]"), { minLength: 0, maxLength: 200 })
    .map((ops) => graphql(`[${ops.join(",")}]`)),
  "variables of the wrong type": fc.tuple(validPost, fc.array(fc.tuple(field, anyJson), { minLength: 1, maxLength: 3 }), hostileKey).map(([p, swaps, key]) => {
    const variables = `{"p":${JSON.stringify({ ...p, ...Object.fromEntries(swaps) }).slice(0, -1)},${JSON.stringify(key)}:{"polluted":${JSON.stringify(MARKER)}}}}`;
    return graphql(`{"query":"mutation($p: PostInput!) { createPost(Post: $p) { slug } }","variables":${variables}}`);
  }),
  "query language": fc
    .tuple(queryString, token)
    .map(([q, t]) => graphql(op("query($q: String, $t: String) { Posts(query: $q, continuationToken: $t) { results { slug } continuationToken } }", { q, t }))),
  "wide filters": wideFilter.map((q) => graphql(op("query($q: String) { Posts(query: $q) { results { slug } } }", { q }))),
  "oversized filters": hugeFilter.map((q) => graphql(op("query($q: String) { Posts(query: $q) { results { slug } } }", { q }))),
  "not a GraphQL request": fc
    .tuple(anyJson, fc.constantFrom("application/json", "text/plain", "application/graphql"))
    .map(([v, type]) => graphql(JSON.stringify(v), { ...user, "content-type": type })),
};

const wsFrame = fc.oneof(
  fc.constantFrom(
    '{"type":"connection_init"}',
    `{"type":"connection_init","payload":{"testUser":"${USER}"}}`,
    '{"type":"ping"}',
    '{"type":"pong"}',
    '{"id":"1","type":"subscribe","payload":{"query":"subscription { Posts { type key } }"}}',
    '{"id":"1","type":"subscribe","payload":{"query":"subscription { Posts(query: \\"nope = \\") { type } }"}}',
    '{"id":"2","type":"subscribe","payload":{"query":"{ versionVersion }"}}',
    '{"id":"1","type":"complete"}',
    '{"type":"subscribe"}',
    '{"id":1,"type":"subscribe","payload":null}',
    '{"type":"next","id":"1","payload":{}}',
    '{"type":"connection_ack"}',
    '{"__proto__":{"type":"connection_init"}}',
    "null",
    "[]",
    "{",
    "",
    "😀",
  ),
  fc.string({ maxLength: 40 }),
  fc
    .record({
      id: fc.oneof(fc.string({ maxLength: 5 }), anyJson),
      type: fc.oneof(fc.constantFrom("subscribe", "connection_init", "complete", "ping", "error"), fc.string({ maxLength: 8 })),
      payload: anyJson,
    })
    .map((m) => JSON.stringify(m)),
  fc
    .integer({ min: 1000, max: 120_000 })
    .map((n) => JSON.stringify({ id: "big", type: "subscribe", payload: { query: `subscription { Posts { type ${"key ".repeat(n / 4)} } }` } })),
);

export const WS_CLASSES: Record<string, fc.Arbitrary<WsSession>> = {
  "malformed graphql-ws messages": fc.array(wsFrame, { minLength: 1, maxLength: 8 }).map((frames) => ({ kind: "ws", frames })),
};
