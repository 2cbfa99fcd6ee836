import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codegen } from "@graphql-codegen/core";
import * as typescriptPlugin from "@graphql-codegen/typescript";
import { parse } from "graphql";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderCache } from "../../lib/cli/cache.ts";
import { cacheRenderers } from "../../lib/cli/renderers.ts";
import { app } from "../fixtures/blog/index.ts";

// The fixture's schema-cache/ as `npm run build` renders it (the project's own is whatever its application is).
const CACHE = await renderCache(app, cacheRenderers);
const cached = (file: string): string => {
  const text = CACHE[file];
  if (text === undefined) throw new Error(`no ${file} rendered`);
  return text;
};
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "typed-clients-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Compiles the files under `tsc --strict` (plus the project's stricter flags); returns the diagnostics as text. */
function compile(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? `:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : "";
    return `${d.file?.fileName ?? ""}${line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

// What a client relies on, checked by the compiler: always-present fields are required, fields a
// policy may hide are optional, every error status carries the error body.
const OPENAPI_USAGE = `
import type { components, paths } from "./openapi.js";
type Post = components["schemas"]["Post"];
type User = components["schemas"]["User"];
export const author = (p: Post): string => p.author;
export const created = (p: Post): string => p.createdAt;
// @ts-expect-error a user's email is hidden from everyone but its owner
export const email = (u: User): string => u.email;
export const maybeEmail = (u: User): string | undefined => u.email;
type GetPost = paths["/posts/{slug}"]["get"];
export const notFound = (e: GetPost["responses"][404]["content"]["application/json"]): number => e.code;
export const slug: GetPost["parameters"]["path"]["slug"] = "hello";
type Patch = NonNullable<paths["/posts/{slug}"]["patch"]["requestBody"]>["content"]["application/json"];
export const removeViews: Patch = { viewCount: null };
// @ts-expect-error a required field cannot be removed
export const removeTitle: Patch = { title: null };
type Throttled = paths["/posts"]["post"]["responses"][429];
export const retry = (r: Throttled): string => r.headers["Retry-After"];
type Listing = paths["/posts"]["put"]["responses"][200]["content"]["application/json"];
// Every page says how much it examined: an empty page with a token is not the end.
export const examined = (l: Listing): number => l.scanned;
`;

const GRAPHQL_USAGE = `
import type { Post, PostResults, Query, QueryPostArgs, QueryPostsArgs, User } from "./graphql.js";
// Required in the schema, so never null: as in the OpenAPI client.
export const title = (p: Post): string => p.title;
export const args: QueryPostArgs = { slug: "hello" };
// A typed client sends limits as variables; the cost limit counts the values sent.
export const page: QueryPostsArgs = { limit: 100, offset: null };
// Every page says how much it examined: an empty page with a token is not the end.
export const progress = (p: PostResults): number => p.scanned;
export const me = (q: Query): User | null | undefined => q.me;
`;

// The same model through both clients: every field both carry has the same type and the same
// presence (required in both, or optional in both). GraphQL enumerations are String (the
// specification's type table), so literal unions are compared as their base type; relation fields
// (an object in GraphQL, the key in REST) are left out.
const SAME_TYPES = `
import type { components } from "./openapi.js";
import type * as G from "./graphql.js";
type Base<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;
type Presence<T, K extends keyof T> = {} extends Pick<T, K> ? "optional" : "required";
type Scalars<T> = { [K in keyof T as NonNullable<T[K]> extends string | number | boolean ? K : never]: T[K] };
type Shape<T> = { [K in keyof Scalars<T> & keyof T]-?: [Base<NonNullable<T[K]>>, Presence<T, K>] };
type Common<R, Q> = Pick<Shape<R>, keyof Shape<R> & keyof Shape<Q>>;
type Same<R, Q> = [Common<R, Q>] extends [Common<Q, R>] ? ([Common<Q, R>] extends [Common<R, Q>] ? true : false) : false;
type Fields<T> = keyof Shape<T>;
// \`Relations\`: REST fields GraphQL carries as the related object; every other REST field must be in both.
const same = <R, Q, Relations extends string = never>(verdict: Same<R, Q>, complete: [Exclude<Fields<R>, Fields<Q> | Relations>] extends [never] ? true : false): boolean =>
  verdict && complete;
type S = components["schemas"];
export const post = same<S["Post"], Omit<G.Post, "__typename">, "author">(true, true);
export const comment = same<S["Comment"], Omit<G.Comment, "__typename">, "author" | "post">(true, true);
export const tag = same<S["Tag"], Omit<G.Tag, "__typename">, "createdBy">(true, true);
export const user = same<S["User"], Omit<G.User, "__typename">>(true, true);
// Create inputs: a required field is required in both.
export const input = same<S["PostInput"], G.PostInput>(true, true);
// A required output field is a plain value in GraphQL, an optional one may be null.
export const title = (p: G.Post): string => p.title;
// @ts-expect-error viewCount is optional in both contracts
export const views = (p: G.Post): number => p.viewCount;
`;

/** Both clients generated, then one compiler run over both (a program's lib setup is most of its cost). */
let diagnostics: string[] = [];

beforeAll(async () => {
  const document = JSON.parse(cached("openapi.json")) as Parameters<typeof openapiTS>[0];
  await writeFile(join(dir, "openapi.d.ts"), astToString(await openapiTS(document)));
  await writeFile(join(dir, "openapi-usage.ts"), OPENAPI_USAGE);
  const output = await codegen({
    schema: parse(cached("schema.graphql")),
    documents: [],
    filename: "graphql.ts",
    config: { enumsAsTypes: true, scalars: { Date: "string", Long: "number", Any: "Record<string, unknown>" } },
    plugins: [{ typescript: {} }],
    pluginMap: { typescript: typescriptPlugin },
  });
  await writeFile(join(dir, "graphql.ts"), output);
  await writeFile(join(dir, "graphql-usage.ts"), GRAPHQL_USAGE);
  await writeFile(join(dir, "same-types.ts"), SAME_TYPES);
  diagnostics = compile([join(dir, "openapi-usage.ts"), join(dir, "graphql-usage.ts"), join(dir, "same-types.ts")]);
}, 120_000);

describe("typed clients generated from the two contracts compile under tsc --strict", () => {
  it("openapi-typescript on the OpenAPI document", () => {
    expect(diagnostics.filter((d) => d.includes("openapi"))).toEqual([]);
  });

  it("graphql-codegen's typescript plugin on schema-cache/schema.graphql", () => {
    expect(diagnostics.filter((d) => !d.includes("openapi") && !d.includes("same-types"))).toEqual([]);
  });

  it("give the same model's fields the same types and the same presence in both clients", () => {
    expect(diagnostics.filter((d) => d.includes("same-types"))).toEqual([]);
  });
});
