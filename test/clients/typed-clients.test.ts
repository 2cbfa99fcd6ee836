import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codegen } from "@graphql-codegen/core";
import * as typescriptPlugin from "@graphql-codegen/typescript";
import { parse } from "graphql";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CACHE = new URL("../../schema-cache/", import.meta.url);
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
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
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
export const title = (p: Post): string | null | undefined => p.title;
export const args: QueryPostArgs = { slug: "hello" };
// A typed client sends limits as variables; the cost limit counts the values sent.
export const page: QueryPostsArgs = { limit: 100, offset: null };
// Every page says how much it examined: an empty page with a token is not the end.
export const progress = (p: PostResults): number => p.scanned;
export const me = (q: Query): User | null | undefined => q.me;
`;

/** Both clients generated, then one compiler run over both (a program's lib setup is most of its cost). */
let diagnostics: string[] = [];

beforeAll(async () => {
  const document = JSON.parse(await readFile(new URL("openapi.json", CACHE), "utf8")) as Parameters<typeof openapiTS>[0];
  await writeFile(join(dir, "openapi.d.ts"), astToString(await openapiTS(document)));
  await writeFile(join(dir, "openapi-usage.ts"), OPENAPI_USAGE);
  const output = await codegen({
    schema: parse(await readFile(new URL("schema.graphql", CACHE), "utf8")),
    documents: [],
    filename: "graphql.ts",
    config: { enumsAsTypes: true, scalars: { Date: "string", Long: "number", Any: "Record<string, unknown>" } },
    plugins: [{ typescript: {} }],
    pluginMap: { typescript: typescriptPlugin },
  });
  await writeFile(join(dir, "graphql.ts"), output);
  await writeFile(join(dir, "graphql-usage.ts"), GRAPHQL_USAGE);
  diagnostics = compile([join(dir, "openapi-usage.ts"), join(dir, "graphql-usage.ts")]);
}, 120_000);

describe("typed clients generated from the two contracts compile under tsc --strict", () => {
  it("openapi-typescript on the OpenAPI document", () => {
    expect(diagnostics.filter((d) => d.includes("openapi"))).toEqual([]);
  });

  it("graphql-codegen's typescript plugin on schema-cache/schema.graphql", () => {
    expect(diagnostics.filter((d) => !d.includes("openapi"))).toEqual([]);
  });
});
