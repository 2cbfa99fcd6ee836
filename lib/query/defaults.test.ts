import { describe, expect, it } from "vitest";
import type { Expression } from "./ast.ts";
import { withDefaults } from "./defaults.ts";
import { evaluate } from "./evaluate.ts";
import { parseFilter } from "./parser.ts";
import { printExpression } from "./print.ts";

const defaults = { status: "draft", views: 0, meta: { lang: "en" }, tags: ["new"] };

/** What a reader is served: a missing or null defaulted field reads as its default. */
function served(record: Record<string, unknown>): Record<string, unknown> {
  const out = { ...record };
  for (const [field, value] of Object.entries(defaults)) if (out[field] === undefined || out[field] === null) out[field] = value;
  return out;
}

const filter = (text: string): Expression => parseFilter(text) as Expression;

const filters = [
  "status = 'draft'",
  "status = 'published'",
  "status != 'draft'",
  "status != 'published'",
  "status IN ['draft', 'archived']",
  "status IN ['archived']",
  "status LIKE 'dr%'",
  "status IS NULL",
  "status IS NOT NULL",
  "NOT status = 'draft'",
  "views = 0",
  "views < 1",
  "views >= 1",
  "NOT views < 1",
  "meta.lang = 'en'",
  "meta.lang = 'fr'",
  "meta.lang IS NULL",
  "tags CONTAINS 'new'",
  "status = 'draft' AND views = 0",
  "status = 'published' OR views > 3",
  "NOT (status = 'draft' OR title = 'x')",
  "title = 'x'",
];

const records: Record<string, unknown>[] = [
  {},
  { title: "x" },
  { status: null, views: null },
  { status: "draft", views: 0 },
  { status: "published", views: 5, meta: { lang: "fr" }, tags: ["old"] },
  { status: "archived", views: 1, meta: {}, title: "x" },
  { meta: { lang: "en" } },
];

describe("withDefaults: a filter on the stored row says what it says on the served one", () => {
  it.each(filters)("%s", (text) => {
    const rewritten = withDefaults(filter(text), defaults);
    for (const record of records) {
      expect(evaluate(rewritten, record), `${printExpression(rewritten)} on ${JSON.stringify(record)}`).toBe(evaluate(filter(text), served(record)));
    }
  });

  it("leaves a predicate that already agrees as written (a Query can still bind it)", () => {
    expect(withDefaults(filter("status = 'published'"), defaults)).toEqual(filter("status = 'published'"));
    expect(withDefaults(filter("title = 'x' AND views > 2"), defaults)).toEqual(filter("title = 'x' AND views > 2"));
  });

  it("adds the absent case where the default matches, excludes it where only absence would", () => {
    expect(printExpression(withDefaults(filter("status = 'draft'"), defaults))).toBe("status = 'draft' OR status IS NULL");
    expect(printExpression(withDefaults(filter("status != 'draft'"), defaults))).toBe("status != 'draft' AND status IS NOT NULL");
  });

  it("changes nothing without defaults", () => {
    const e = filter("status = 'draft'");
    expect(withDefaults(e, {})).toBe(e);
  });
});
