import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QueryError } from "./fail.ts";
import { parseFilter, parseQuery } from "./parser.ts";
import { planDynamoQuery, type DynamoPlan, type TableShape } from "./plan.ts";
import { operatorCount } from "./plan-filter.ts";

const comments: TableShape = {
  key: { hash: "uuid" },
  indexes: [{ name: "by_post", hash: "post", range: "uuid" }],
};

const posts: TableShape = {
  key: { hash: "author", range: "slug" },
  indexes: [
    { name: "by_status", hash: "status", range: "createdAt" },
    { name: "by_author_date", hash: "author", range: "createdAt" },
    { name: "by_category", hash: "category" },
  ],
};

/** The planner's own limits are what these tests reach, so the parser's width limits are lifted. */
const WIDE = { terms: 1000, orBranches: 1000 };

function plan(text: string, table: TableShape = posts): DynamoPlan {
  return planDynamoQuery(parseQuery(text, WIDE), table);
}

/** Substitutes placeholders back so assertions read like the query they came from. */
function readable(expression: string | undefined, result: DynamoPlan): string | undefined {
  return expression?.replace(/#n\d+/g, (id) => result.names[id] ?? id).replace(/:(v\d+|NULL|L|S)\b/g, (id) => JSON.stringify(result.values[id]));
}

function placeholdersIn(result: DynamoPlan): string[] {
  const texts = [result.kind === "query" ? result.keyCondition : "", result.filterExpression ?? ""].join(" ");
  return [...new Set(texts.match(/[#:][A-Za-z]+\d*/g) ?? [])].sort();
}

describe("planDynamoQuery: choosing the read", () => {
  it("queries the index whose hash key is bound", () => {
    const result = plan("post = 'x'", comments);
    expect(result).toMatchObject({ kind: "query", indexName: "by_post", scanForward: true });
    expect(readable(result.kind === "query" ? result.keyCondition : "", result)).toBe('post = "x"');
    expect(result.filterExpression).toBeUndefined();
    expect(result.residual).toBeUndefined();
  });

  it("prefers the table when its hash key is bound", () => {
    const result = plan("uuid = 'c1' AND post = 'x'", comments);
    expect(result).toMatchObject({ kind: "query", scanForward: true });
    expect(result).not.toHaveProperty("indexName");
    expect(result.kind === "query" && readable(result.keyCondition, result)).toBe('uuid = "c1"');
    expect(readable(result.filterExpression, result)).toBe('post = "x"');
  });

  it("prefers an index whose range key the query also constrains", () => {
    const result = plan("category = 'c' AND status = 'draft' AND createdAt > '2024'");
    expect(result).toMatchObject({ kind: "query", indexName: "by_status" });
    expect(result.kind === "query" && readable(result.keyCondition, result)).toBe('status = "draft" AND createdAt > "2024"');
    expect(readable(result.filterExpression, result)).toBe('category = "c"');
  });

  it("otherwise takes the first declared index with a bound hash key", () => {
    expect(plan("category = 'c' AND status = 'draft'")).toMatchObject({ kind: "query", indexName: "by_status" });
    expect(plan("category = 'c' AND title = 't'")).toMatchObject({ kind: "query", indexName: "by_category" });
  });

  it("scans when no hash key is bound by a top-level equality", () => {
    expect(plan("author = 'a' OR author = 'b'")).toMatchObject({ kind: "scan" });
    expect(plan("NOT author = 'a'")).toMatchObject({ kind: "scan" });
    expect(plan("author != 'a'")).toMatchObject({ kind: "scan" });
    expect(plan("author = TRUE")).toMatchObject({ kind: "scan" });
    expect(plan("author = ''")).toMatchObject({ kind: "scan" });
    expect(plan("")).toEqual({ kind: "scan", names: {}, values: {} });
  });

  it("finds a hash key inside parenthesised conjunctions", () => {
    expect(plan("(title = 't' AND (author = 'a' AND views > 3))")).toMatchObject({ kind: "query" });
  });
});

describe("planDynamoQuery: key conditions", () => {
  it.each([
    ["author = 'a' AND slug = 's'", 'author = "a" AND slug = "s"'],
    ["author = 'a' AND slug < 's'", 'author = "a" AND slug < "s"'],
    ["author = 'a' AND slug <= 's'", 'author = "a" AND slug <= "s"'],
    ["author = 'a' AND slug > 's'", 'author = "a" AND slug > "s"'],
    ["author = 'a' AND slug >= 's'", 'author = "a" AND slug >= "s"'],
    ["author = 'a' AND slug LIKE 'ab%'", 'author = "a" AND begins_with(slug, "ab")'],
    ["author = 'a' AND slug LIKE 'ab'", 'author = "a" AND slug = "ab"'],
    ["author = 'a' AND slug >= 'a' AND slug <= 'm'", 'author = "a" AND slug BETWEEN "a" AND "m"'],
    ["slug <= 'm' AND author = 'a' AND slug >= 'a'", 'author = "a" AND slug BETWEEN "a" AND "m"'],
    ["author = 5 AND slug > -2.5", "author = 5 AND slug > -2.5"],
  ])("%s", (text, expected) => {
    const result = plan(text);
    expect(result.kind).toBe("query");
    expect(result.kind === "query" && readable(result.keyCondition, result)).toBe(expected);
    expect(result.filterExpression).toBeUndefined();
    expect(result.residual).toBeUndefined();
  });

  it("keeps one range condition and leaves the others to the residual", () => {
    const result = plan("author = 'a' AND slug > 'a' AND slug < 'm' AND slug LIKE 'b%'");
    expect(result.kind === "query" && readable(result.keyCondition, result)).toBe('author = "a" AND begins_with(slug, "b")');
    expect(result.filterExpression).toBeUndefined();
    expect(result.residual).toEqual(parseQuery("slug > 'a' AND slug < 'm'").where);
  });

  it("does not build BETWEEN from bounds in the wrong order", () => {
    const result = plan("author = 'a' AND slug >= 'm' AND slug <= 'a'");
    expect(result.kind === "query" && readable(result.keyCondition, result)).toBe('author = "a" AND slug >= "m"');
    expect(result.residual).toEqual(parseQuery("slug <= 'a'").where);
  });

  it("keeps conditions on key attributes out of a Query's filter", () => {
    const result = plan("author = 'a' AND author = 'b' AND slug != 'x' AND (slug = 'y' OR title = 't') AND title = 'u'");
    expect(readable(result.filterExpression, result)).toBe('title = "u"');
    expect(result.residual).toEqual(parseQuery("author = 'b' AND slug != 'x' AND (slug = 'y' OR title = 't')").where);
  });

  it("lets a Scan filter on key attributes", () => {
    const result = plan("slug != 'x'");
    expect(result.kind).toBe("scan");
    expect(readable(result.filterExpression, result)).toBe('slug <> "x"');
  });
});

describe("planDynamoQuery: filters", () => {
  it.each([
    ["title = 't'", 'title = "t"'],
    ["title != 't'", 'title <> "t"'],
    ["views < 3", "views < 3"],
    ["views >= 3.5", "views >= 3.5"],
    ["published = TRUE", "published = true"],
    ["views IN [1, 2, 'x']", 'views IN (1, 2, "x")'],
    ["flag IN [TRUE, 'x']", '(flag = true OR flag = "x")'],
    ["tags CONTAINS 'x'", '(attribute_type(tags, "L") AND contains(tags, "x"))'],
    ["title LIKE 'ab%'", 'begins_with(title, "ab")'],
    ["title LIKE 'ab'", 'title = "ab"'],
    ["title LIKE '%ab%'", '(attribute_type(title, "S") AND contains(title, "ab"))'],
    ["title LIKE '%'", 'attribute_type(title, "S")'],
    ["title IS NULL", '(attribute_not_exists(title) OR attribute_type(title, "NULL"))'],
    ["title IS NOT NULL", '(attribute_exists(title) AND (NOT attribute_type(title, "NULL")))'],
    ["author.address.city = 'P'", 'author.address.city = "P"'],
    ["NOT views < 3", "(NOT views < 3)"],
    ["views = 1 OR title = 't' AND tags CONTAINS 2", '(views = 1 OR (title = "t" AND (attribute_type(tags, "L") AND contains(tags, 2))))'],
  ])("%s", (text, expected) => {
    const result = plan(text);
    expect(result.kind).toBe("scan");
    expect(readable(result.filterExpression, result)).toBe(expected);
    expect(result.residual).toBeUndefined();
  });

  it("uses one name placeholder per attribute name, one value placeholder per value", () => {
    const result = plan("a.b = 1 AND b.a = 1");
    expect(result.filterExpression).toBe("#n0.#n1 = :v0 AND #n1.#n0 = :v1");
    expect(result.names).toEqual({ "#n0": "a", "#n1": "b" });
    expect(result.values).toEqual({ ":v0": 1, ":v1": 1 });
  });
});

describe("planDynamoQuery: residual", () => {
  it("moves a LIKE DynamoDB cannot express, and only that conjunct", () => {
    const result = plan("title LIKE 'a%b' AND views > 1 AND body LIKE 'x_y'");
    expect(readable(result.filterExpression, result)).toBe("views > 1");
    expect(result.residual).toEqual(parseQuery("title LIKE 'a%b' AND body LIKE 'x_y'").where);
    expect(result.names).toEqual({ "#n0": "views" });
  });

  it("moves a whole OR or NOT subtree that holds one", () => {
    const result = plan("views > 1 AND (title LIKE '%x' OR views = 0) AND NOT body LIKE '_'");
    expect(readable(result.filterExpression, result)).toBe("views > 1");
    expect(result.residual).toEqual(parseQuery("(title LIKE '%x' OR views = 0) AND NOT body LIKE '_'").where);
  });

  it("moves what DynamoDB would reject rather than evaluate", () => {
    const many = Array.from({ length: 101 }, (_, i) => i).join(", ");
    const result = plan(`published < TRUE AND tags CONTAINS FALSE AND views IN [${many}]`);
    expect(result.filterExpression).toBeUndefined();
    expect(result.residual?.kind).toBe("and");
    expect(result).toMatchObject({ names: {}, values: {} });
  });

  it("never reaches the planner with a number DynamoDB cannot hold: the query language refuses it", () => {
    for (const text of ["views < 1e200", "score > -1e-200", "views IN [1, 1e130]", "tags CONTAINS 2e-131", "views = 1e400", "uuid = 1e300"]) {
      expect(() => parseQuery(text)).toThrow(/finite|outside the range/);
    }
    expect(readable(plan("views >= 1e125").filterExpression, plan("views >= 1e125"))).toBe("views >= 1e+125");
  });

  it("keeps what does not fit DynamoDB's 4 KB expression limit for evaluate, never sends it", () => {
    const wide = Array.from({ length: 500 }, (_, i) => `viewCount = ${i}`).join(" OR ");
    const result = plan(`title = 't' AND (${wide})`);
    expect(readable(result.filterExpression, result)).toBe('title = "t"');
    expect(result.residual).toEqual(parseFilter(wide, WIDE));
    const many = plan(Array.from({ length: 150 }, (_, i) => `title != 'x${i}'`).join(" AND "));
    expect(Buffer.byteLength(many.filterExpression ?? "")).toBeLessThanOrEqual(4096);
    const sent = (many.filterExpression ?? "").split(" AND ").length;
    const kept = many.residual?.kind === "and" ? many.residual.operands.length : 1;
    expect([sent, kept]).toEqual([100, 50]);
  });
});

describe("planDynamoQuery: DynamoDB's 300 operators", () => {
  it("counts every comparison, connective, IN and function of an emitted filter", () => {
    expect(operatorCount("(#n0 = :v0 OR #n0 = :v1)")).toBe(3);
    expect(operatorCount("(attribute_exists(#n0) AND (NOT attribute_type(#n0, :NULL)))")).toBe(4);
    expect(operatorCount("#n0 IN (:v0, :v1, :v2)")).toBe(1);
    expect(operatorCount("#n0 <> :v0 AND #n1 <= :v1 AND begins_with(#n2, :v2)")).toBe(5);
  });

  it("keeps the conjuncts past 300 operators for evaluate, though each fits the 4 KB", () => {
    // A boolean IN is sent as equalities joined by OR: 100 values are 199 operators alone.
    const booleans = (field: string) => `${field} IN [${Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? "TRUE" : "FALSE")).join(", ")}]`;
    const result = plan(`${booleans("published")} AND ${booleans("featured")}`);
    const sent = result.filterExpression ?? "";
    expect(operatorCount(sent)).toBeLessThanOrEqual(300);
    expect(operatorCount(sent)).toBe(199);
    expect(result.residual).toEqual(parseFilter(booleans("featured"), WIDE));
  });
});

describe("planDynamoQuery: ORDER BY", () => {
  it("is served by the range key of the bound key shape", () => {
    const asc = plan("author = 'a' ORDER BY slug");
    expect(asc).toMatchObject({ kind: "query", scanForward: true });
    expect(asc).not.toHaveProperty("indexName");
    expect(plan("author = 'a' ORDER BY slug DESC")).toMatchObject({ kind: "query", scanForward: false });
  });

  it("selects the index whose range key is the order", () => {
    expect(plan("author = 'a' ORDER BY createdAt DESC")).toMatchObject({
      kind: "query",
      indexName: "by_author_date",
      scanForward: false,
    });
    expect(plan("status = 'draft' AND author = 'a' ORDER BY createdAt")).toMatchObject({ indexName: "by_status" });
    expect(plan("post = 'p' ORDER BY uuid DESC", comments)).toMatchObject({ indexName: "by_post", scanForward: false });
  });

  it.each([
    ["author = 'a' ORDER BY title", "title"],
    ["ORDER BY slug", "slug"],
    ["title = 'x' ORDER BY createdAt", "createdAt"],
    ["category = 'c' ORDER BY createdAt", "createdAt"],
    ["author = 'a' OR status = 'x' ORDER BY createdAt", "createdAt"],
    ["author = 'a' ORDER BY slug, title", "title"],
  ])("rejects %s", (text, field) => {
    const message = `cannot ORDER BY '${field}': no index serves this order; declare one on the model`;
    let error: unknown;
    try {
      plan(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QueryError);
    expect(error).toMatchObject({ message, errors: [{ path: "/q", message }] });
  });
});

describe("planDynamoQuery: placeholders", () => {
  const marker = fc.string({ minLength: 1, maxLength: 8 }).map((text) => `Q${text}Z`);

  it("never splices a user value into an expression, and declares only what it uses", () => {
    fc.assert(
      fc.property(marker, marker, marker, fc.integer({ min: 1000, max: 9999 }), (a, b, c, n) => {
        const quote = (text: string): string => `'${text.replace(/[\\']/g, "\\$&")}'`;
        const text =
          `status = ${quote(a)} AND createdAt >= ${quote(b)} AND (title LIKE ${quote(`${c}%`)} OR tags CONTAINS ${quote(a)})` +
          ` AND views IN [${n}, ${quote(c)}] AND NOT body = ${quote(b)} AND x.y IS NULL ORDER BY createdAt DESC`;
        const result = plan(text);
        const expressions = [result.kind === "query" ? result.keyCondition : "", result.filterExpression ?? ""].join("\n");
        for (const value of [a, b, c, String(n), "status", "title", "tags"]) expect(expressions).not.toContain(value);
        expect(placeholdersIn(result)).toEqual([...Object.keys(result.names), ...Object.keys(result.values)].sort());
      }),
      { numRuns: 200 },
    );
  });

  it("declares only used placeholders when parts go to the residual", () => {
    const result = plan("author = 'a' AND slug > 'b' AND slug LIKE 'x_' AND (title LIKE '_' OR views = 1)");
    expect(placeholdersIn(result)).toEqual([...Object.keys(result.names), ...Object.keys(result.values)].sort());
  });
});
