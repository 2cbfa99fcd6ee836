import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { diffVersions, includedCacheFiles } from "./diff.ts";

const routes = (...keys: string[]): string => JSON.stringify(keys.map((key) => ({ key })));
const table = (name: string, ...indexes: string[]): CreateTableCommandInput => ({
  TableName: name,
  KeySchema: [],
  GlobalSecondaryIndexes: indexes.map((IndexName) => ({ IndexName, KeySchema: [], Projection: {} })),
});

describe("includedCacheFiles", () => {
  it("names the schema-cache files serverless.yml includes", () => {
    const yml = "httpApi: ${file(./schema-cache/http-api.json)}\n  - ${file(./schema-cache/functions.json)}\n# schema-cache/routes.json\n";
    expect([...includedCacheFiles(yml)]).toEqual(["http-api.json", "functions.json"]);
  });
});

describe("diffVersions", () => {
  const before = {
    files: { "routes.json": routes("GET /posts", "POST /posts"), "functions.json": "f1", "validators.mjs": "v1" },
    tables: [table("shop-local-Post", "by_author")],
  };
  const included = new Set(["functions.json"]);

  it("names a new model's routes by path and its table, and restarts offline for new functions", () => {
    const after = {
      files: {
        "routes.json": routes("GET /posts", "POST /posts", "GET /bookmarks", "POST /bookmarks", "GET /bookmarks/{uuid}"),
        "functions.json": "f2",
        "validators.mjs": "v2",
      },
      tables: [table("shop-local-Post", "by_author"), table("shop-local-Bookmark")],
    };
    expect(diffVersions(before, after, included)).toEqual({
      lines: ["+ routes /bookmarks, /bookmarks/{uuid}", "+ table shop-local-Bookmark", "~ schema-cache/ functions.json, routes.json, validators.mjs"],
      files: ["functions.json", "routes.json", "validators.mjs"],
      restart: true,
    });
  });

  it("rebundles without a restart when only what the bundles import changed (a schema edit)", () => {
    const after = { ...before, files: { ...before.files, "validators.mjs": "v2" } };
    expect(diffVersions(before, after, included)).toEqual({ lines: ["~ schema-cache/ validators.mjs"], files: ["validators.mjs"], restart: false });
  });

  it("names a method added on a known path, a removed route, a new index and a table no longer used", () => {
    const after = {
      files: { ...before.files, "routes.json": routes("GET /posts", "PATCH /posts") },
      tables: [table("shop-local-Post", "by_author", "by_shop")],
    };
    expect(diffVersions({ ...before, tables: [...before.tables, table("shop-local-Old")] }, after, included).lines).toEqual([
      "+ routes PATCH /posts",
      "- routes POST /posts",
      "+ index shop-local-Post.by_shop",
      "- table shop-local-Old (no longer used; its data stays in DynamoDB Local)",
      "~ schema-cache/ routes.json",
    ]);
  });

  it("reports nothing for a code-only edit", () => {
    expect(diffVersions(before, { ...before }, included)).toEqual({ lines: [], files: [], restart: false });
  });
});
