import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { QueryError } from "./fail.ts";
import { checkExpression, checkQuery, type CheckOptions } from "./check.ts";
import { parseFilter, parseQuery } from "./parser.ts";

const Post = Type.Object({
  slug: Type.String(),
  title: Type.String(),
  viewCount: Type.Integer({ minimum: 0 }),
  rating: Type.Optional(Type.Number()),
  published: Type.Boolean(),
  status: Type.Union([Type.Literal("draft"), Type.Literal("published")]),
  kind: Type.String({ enum: ["a", "b"] }),
  tags: Type.Array(Type.String()),
  scores: Type.Array(Type.Number()),
  author: Type.Object({ name: Type.String(), address: Type.Object({ city: Type.String() }) }),
  subtitle: Type.Union([Type.String(), Type.Null()]),
  meta: Type.Unknown(),
  labels: Type.Record(Type.String(), Type.String()),
  publishedAt: Type.String({ format: "date-time" }),
});

const options: CheckOptions = {
  extraFields: { createdAt: { type: "string", format: "date-time" }, updatedAt: { type: "string", format: "date-time" } },
};

function problems(text: string): string[] {
  try {
    checkQuery(parseQuery(text), Post, options);
    return [];
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    expect(error.errors.every((entry) => entry.path === "/q")).toBe(true);
    return error.errors.map((entry) => entry.message);
  }
}

describe("checkQuery", () => {
  it.each([
    "slug = 'a' AND viewCount > 3 AND rating <= 4.5",
    "published = TRUE OR published != FALSE",
    "status = 'draft' OR status IN ['published', 'other']",
    "kind = 'a'",
    "title LIKE 'a%' AND tags CONTAINS 'x' AND scores CONTAINS 2.5",
    "author.name = 'Ann' AND author.address.city LIKE 'P%'",
    "subtitle = 'x' OR subtitle IS NULL",
    "meta = 1 AND meta.anything.deep = 'x'",
    "labels.color = 'red'",
    "createdAt > '2024-01-01' AND updatedAt <= '2025' AND publishedAt >= '2024-06-01T00:00:00Z'",
    "rating IS NULL AND tags IS NOT NULL AND author IS NULL",
    "ORDER BY createdAt DESC",
    "ORDER BY viewCount, author.name",
    "",
  ])("accepts %s", (text) => {
    expect(problems(text)).toEqual([]);
  });

  it.each([
    ["nope = 1", ["unknown field 'nope' at column 1"]],
    ["author.nmae = 'x'", ["unknown field 'author.nmae' at column 1"]],
    ["title.length = 3", ["unknown field 'title.length' at column 1"]],
    ["author.address.city.zip = 1", ["unknown field 'author.address.city.zip' at column 1"]],
    ["viewCount = '3'", ["cannot compare 'viewCount', which is a number, with a string at column 1"]],
    ["title > 3", ["cannot compare 'title', which is a string, with a number at column 1"]],
    ["published = 'yes'", ["cannot compare 'published', which is a boolean, with a string at column 1"]],
    ["published < TRUE", ["cannot use '<' with a boolean on 'published' at column 1"]],
    ["status = 3", ["cannot compare 'status', which is a string, with a number at column 1"]],
    ["viewCount IN [1, 'x']", ["cannot compare 'viewCount', which is a number, with a string (IN value 2) at column 1"]],
    ["viewCount LIKE '1%'", ["LIKE needs a string field, but 'viewCount' is a number at column 1"]],
    ["title CONTAINS 'x'", ["CONTAINS needs an array field, but 'title' is a string at column 1"]],
    ["tags CONTAINS 3", ["'tags' holds a string, not a number at column 1"]],
    ["tags = 'x'", ["cannot compare 'tags', which is an array, with a string (use CONTAINS to look inside an array) at column 1"]],
    ["author = 'x'", ["cannot compare 'author', which is an object, with a string at column 1"]],
    ["ORDER BY nope", ["unknown field 'nope' in ORDER BY at column 10"]],
    ["ORDER BY tags", ["cannot ORDER BY 'tags', which is an array at column 10"]],
  ])("rejects %s", (text, expected) => {
    expect(problems(text)).toEqual(expected);
  });

  it("reports every problem at once, the first in the message", () => {
    try {
      checkQuery(parseQuery("a = 1 AND (title = 1 OR NOT b IS NULL)"), Post);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(QueryError);
      const bad = error as QueryError;
      expect(bad.message).toBe("unknown field 'a' at column 1 (and 2 more)");
      expect(bad.errors.map((entry) => entry.message)).toEqual([
        "unknown field 'a' at column 1",
        "cannot compare 'title', which is a string, with a number at column 12",
        "unknown field 'b' at column 29",
      ]);
    }
  });

  it("rejects extra fields unless they are declared", () => {
    expect(() => checkQuery(parseQuery("createdAt > 'x'"), Post)).toThrow("unknown field 'createdAt' at column 1");
  });

  it("works on hand-built trees, without columns", () => {
    expect(() => checkExpression({ kind: "isNull", field: "ghost", negated: false }, Post)).toThrow(/^unknown field 'ghost'$/);
  });

  it("accepts plain JSON Schema with enum and type lists", () => {
    const schema = {
      type: "object",
      properties: { color: { enum: ["red", "green"] }, size: { type: ["integer", "null"] } },
    } as const;
    const filter = parseFilter("color = 'blue' AND size > 2 AND size IS NULL");
    if (filter === undefined) throw new Error("unreachable");
    expect(() => checkExpression(filter, schema)).not.toThrow();
    expect(() => checkExpression({ kind: "compare", field: "color", operator: "=", value: 1 }, schema)).toThrow(
      "cannot compare 'color', which is a string, with a number",
    );
  });
});
