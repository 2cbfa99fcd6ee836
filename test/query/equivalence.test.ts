import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTables } from "../../lib/local/tables.ts";
import {
  compareStrings,
  evaluate,
  parseQuery,
  planDynamoQuery,
  printQuery,
  type CompareOperator,
  type Expression,
  type Query,
  type Value,
} from "../../lib/query/index.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableDefinition } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import type { Item, Page, Repository } from "../../lib/store/repository.ts";
import { allPages, deleteItems, modelInfo, putItems } from "./support.ts";

/**
 * The planner's claim is that Query/Scan + KeyCondition + FilterExpression + residual selects
 * exactly the records `evaluate` selects. This checks the claim against DynamoDB Local itself on
 * generated records and queries, and that paging never loses, repeats or reorders a record.
 */

/** About 20 s on two cores; `QEQ_RUNS=300` hunts longer. */
const RUNS = Number(process.env.QEQ_RUNS ?? 30);
const SINGLES_PER_RUN = 30;
/** Normal runs take a fraction of this; it bounds shrinking, which replays whole runs. */
const TIME_BUDGET_MS = Math.max(120_000, RUNS * 4_000);
const QUERIES_PER_RUN = 10;

// A composite table key plus two indexes (one with a numeric hash, one with a numeric range), so
// the planner has a Query on the table or on either index to choose from.
const info = modelInfo(
  "Rec",
  ["pk", "sk"],
  {
    pk: { type: "string" },
    sk: { type: "string" },
    grp: { type: "string" },
    rank: { type: "number" },
    code: { type: "number" },
    title: { type: "string" },
    s: { type: ["string", "null"] },
    n: { type: ["number", "null"] },
    b: { type: ["boolean", "null"] },
    tags: { type: ["array", "null"], items: { type: "string" } },
    nested: { type: ["object", "null"], properties: { x: { type: "string" }, y: { type: "number" } } },
    v: {},
  },
  [
    { name: "by_grp", hash: "grp", range: "rank" },
    { name: "by_code", hash: "code", range: "title" },
  ],
);
const shape = info.table;
const prefix = `qeq-${process.pid}-`;
const tableName = `${prefix}${info.name}`;

const endpoint = inject("dynamodbEndpoint");
const documents = createDocumentClient(endpoint);
const admin = new DynamoDBClient({ endpoint, region: process.env.AWS_REGION ?? "us-east-1" });

beforeAll(async () => {
  await ensureTables(admin, [tableDefinition(info, prefix)]);
});
afterAll(() => {
  documents.destroy();
  admin.destroy();
});

// ---------------------------------------------------------------------------------------------
// Values. Shared prefixes (a/ab/abc), LIKE metacharacters, quotes, a backslash, non-ASCII, an
// astral character and one from U+E000-U+FFFF (whose UTF-16 order differs from UTF-8's). The
// pools are small on purpose: records and queries draw from the same few values, so equalities,
// prefixes and substrings actually hit.

const STRINGS = ["a", "ab", "abc", "a%c", "a_c", "a\\c", "O'Neil", '"q"', "é", "😀", "ｚ"];
const stringValue = fc.constantFrom("", ...STRINGS);
const keyString = fc.constantFrom(...STRINGS);
const numberValue = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(-1.5, -0.25, 0.5, 2.5, 1e-7, 2 ** 53 - 1));
const scalarValue: fc.Arbitrary<Value> = fc.oneof(stringValue, numberValue, fc.boolean());
// Literals a query may hold but a record cannot: beyond ±2^53 the document client refuses to write
// (or send) a JS number, and DynamoDB stores -0 as 0 (equal for `=`, but not for a deep comparison
// of records). Magnitudes DynamoDB cannot hold (above ~1E+126, below 1E-130) the language refuses.
const queryNumber = fc.oneof({ arbitrary: numberValue, weight: 5 }, fc.constantFrom(-0, 1e21, -1e21, 1e125, -1e-130));
const queryScalar: fc.Arbitrary<Value> = fc.oneof(stringValue, queryNumber, fc.boolean());

// ---------------------------------------------------------------------------------------------
// Records. Table and index key attributes follow DynamoDB's rules (typed, non-empty, never NULL;
// index range keys always present, as the planner assumes); every other field may be missing,
// null, or (for `v`, which the schema leaves open) of any type.

// Strings weigh most: they are where substring, prefix and membership tests can be confused.
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: stringValue, weight: 3 },
  { arbitrary: scalarValue, weight: 2 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.array(fc.oneof(scalarValue, stringValue, fc.constant(null)), { maxLength: 3 }), weight: 2 },
  { arbitrary: fc.record({ x: fc.oneof(scalarValue, stringValue, fc.constant(null)) }, { requiredKeys: [] }), weight: 2 },
  // The document client stores a JS Set as a DynamoDB string or number set, which is not a list.
  { arbitrary: fc.uniqueArray(keyString, { minLength: 1, maxLength: 3 }).map((items) => new Set(items)), weight: 1 },
  { arbitrary: fc.uniqueArray(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 3 }).map((items) => new Set(items)), weight: 1 },
);

const recordArb: fc.Arbitrary<Item> = fc.record(
  {
    pk: fc.constantFrom("p1", "p2"),
    sk: fc.tuple(keyString, fc.constantFrom("", "1", "2", "3")).map(([base, suffix]) => base + suffix),
    grp: fc.constantFrom("g1", "g2"),
    rank: numberValue,
    code: fc.constantFrom(1, 2),
    title: keyString,
    s: fc.oneof(stringValue, fc.constant(null)),
    n: fc.oneof(numberValue, fc.constant(null)),
    b: fc.oneof(fc.boolean(), fc.constant(null)),
    tags: fc.oneof(fc.array(stringValue, { maxLength: 3 }), fc.constant(null)),
    nested: fc.oneof(fc.record({ x: stringValue, y: numberValue }, { requiredKeys: [] }), fc.constant(null)),
    v: anyValue,
  },
  { requiredKeys: ["pk", "sk", "rank", "title"] },
);

const dataSetArb = fc.uniqueArray(recordArb, { maxLength: 40, size: "max", selector: (item) => `${String(item.pk)}\u0000${String(item.sk)}` });

// ---------------------------------------------------------------------------------------------
// Expressions.

type Kind = "string" | "number" | "boolean" | "array" | "object" | "any";

interface FieldSpec {
  field: string;
  kind: Kind;
  /** How often queries test it: open-typed and nested fields hide the most type confusions. */
  weight?: number;
}

const FIELDS: FieldSpec[] = [
  { field: "pk", kind: "string" },
  { field: "sk", kind: "string" },
  { field: "grp", kind: "string" },
  { field: "rank", kind: "number" },
  { field: "code", kind: "number" },
  { field: "title", kind: "string" },
  { field: "s", kind: "string", weight: 2 },
  { field: "n", kind: "number" },
  { field: "b", kind: "boolean" },
  { field: "tags", kind: "array", weight: 2 },
  { field: "nested", kind: "object" },
  { field: "nested.x", kind: "string", weight: 2 },
  { field: "nested.y", kind: "number" },
  { field: "v", kind: "any", weight: 4 },
  { field: "v.x", kind: "any", weight: 2 },
  { field: "v.x.y", kind: "any" },
];

function valueOf(kind: Kind): fc.Arbitrary<Value> {
  if (kind === "string") return stringValue;
  if (kind === "number") return queryNumber;
  if (kind === "boolean") return fc.boolean();
  return queryScalar;
}

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, "\\$&");

/** Patterns of every shape the planner distinguishes: exact, prefix%, %suffix, %inner%, `_`, bare `%`. */
const likePattern: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom("", ...STRINGS), fc.constantFrom("exact", "prefix", "suffix", "infix")).map(([text, how]) => {
    const literal = escapeLike(text);
    if (how === "prefix") return `${literal}%`;
    if (how === "suffix") return `%${literal}`;
    if (how === "infix") return `%${literal}%`;
    return literal;
  }),
  fc.array(fc.constantFrom("a", "b", "c", "é", "😀", "%", "_", "\\%", "\\_", "\\\\", "\\", "'"), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("")),
);

const ORDERING: CompareOperator[] = ["<", "<=", ">", ">="];

function predicateFor({ field, kind }: FieldSpec): fc.Arbitrary<Expression> {
  const options: fc.WeightedArbitrary<Expression>[] = [
    { arbitrary: fc.boolean().map((negated): Expression => ({ kind: "isNull", field, negated })), weight: 3 },
  ];
  if (kind !== "array" && kind !== "object") {
    // The checker refuses ordering a boolean, except on a field the schema leaves open.
    const operators: CompareOperator[] = kind === "boolean" ? ["=", "!="] : ["=", "!=", ...ORDERING];
    const operator = fc.constantFrom(...operators);
    options.push(
      { arbitrary: fc.record({ kind: fc.constant("compare" as const), field: fc.constant(field), operator, value: valueOf(kind) }), weight: 3 },
      {
        arbitrary: fc.record({ kind: fc.constant("in" as const), field: fc.constant(field), values: fc.array(valueOf(kind), { minLength: 1, maxLength: 4 }) }),
        weight: 3,
      },
      // Past DynamoDB's 100 IN operands the planner must leave the test to the residual.
      {
        arbitrary: fc.record({
          kind: fc.constant("in" as const),
          field: fc.constant(field),
          values: fc.array(valueOf(kind), { minLength: 100, maxLength: 102 }),
        }),
        weight: 1,
      },
    );
  }
  if (kind === "string" || kind === "any") {
    options.push({ arbitrary: fc.record({ kind: fc.constant("like" as const), field: fc.constant(field), pattern: likePattern }), weight: 3 });
  }
  if (kind === "array" || kind === "any") {
    const value = kind === "array" ? stringValue : queryScalar;
    options.push({ arbitrary: fc.record({ kind: fc.constant("contains" as const), field: fc.constant(field), value }), weight: 3 });
  }
  return fc.oneof(...options);
}

const predicateArb: fc.Arbitrary<Expression> = fc.oneof(...FIELDS.map((spec) => ({ arbitrary: predicateFor(spec), weight: spec.weight ?? 1 })));

function expressionArb(depth: number): fc.Arbitrary<Expression> {
  if (depth === 0) return predicateArb;
  const inner = expressionArb(depth - 1);
  return fc.oneof(
    { arbitrary: predicateArb, weight: 3 },
    { arbitrary: inner.map((operand): Expression => ({ kind: "not", operand })), weight: 1 },
    { arbitrary: fc.array(inner, { minLength: 2, maxLength: 3 }).map((operands): Expression => ({ kind: "and", operands })), weight: 1 },
    { arbitrary: fc.array(inner, { minLength: 2, maxLength: 3 }).map((operands): Expression => ({ kind: "or", operands })), weight: 1 },
  );
}

/** A key shape the query may bind: its hash value and its range conditions, well-typed as checked queries are. */
const KEY_SHAPES = [
  { hash: "pk", hashValue: fc.constantFrom<Value>("p1", "p2", "p3"), range: "sk", rangeKind: "string" as const },
  { hash: "grp", hashValue: fc.constantFrom<Value>("g1", "g2"), range: "rank", rangeKind: "number" as const },
  { hash: "code", hashValue: fc.constantFrom<Value>(1, 2), range: "title", rangeKind: "string" as const },
];

function rangeConditionArb(range: string, kind: "string" | "number"): fc.Arbitrary<Expression> {
  const value = kind === "string" ? keyString : queryNumber;
  const compare = fc.record({
    kind: fc.constant("compare" as const),
    field: fc.constant(range),
    operator: fc.constantFrom<CompareOperator>("=", "!=", ...ORDERING),
    value,
  });
  if (kind === "number") return compare;
  const prefix = fc
    .tuple(fc.constantFrom("", ...STRINGS), fc.boolean())
    .map(([text, open]): Expression => ({ kind: "like", field: range, pattern: `${escapeLike(text)}${open ? "%" : ""}` }));
  return fc.oneof(compare, prefix);
}

const queryArb: fc.Arbitrary<Query> = fc
  .record({
    key: fc.option(fc.constantFrom(...KEY_SHAPES), { nil: undefined, freq: 3 }),
    rest: fc.array(expressionArb(2), { maxLength: 2 }),
    position: fc.nat(),
    direction: fc.option(fc.constantFrom<"ASC" | "DESC">("ASC", "DESC"), { nil: undefined }),
  })
  .chain(({ key, rest, position, direction }) => {
    if (key === undefined) {
      const where: Expression | undefined = rest.length === 0 ? undefined : rest.length === 1 ? rest[0] : { kind: "and", operands: rest };
      return fc.constant<Query>(where === undefined ? { orderBy: [] } : { where, orderBy: [] });
    }
    return fc.tuple(key.hashValue, fc.array(rangeConditionArb(key.range, key.rangeKind), { maxLength: 2 })).map(([hashValue, ranges]): Query => {
      const conjuncts: Expression[] = [...ranges, ...rest];
      conjuncts.splice(position % (conjuncts.length + 1), 0, { kind: "compare", field: key.hash, operator: "=", value: hashValue });
      const where: Expression = conjuncts.length === 1 && conjuncts[0] ? conjuncts[0] : { kind: "and", operands: conjuncts };
      return { where, orderBy: direction === undefined ? [] : [{ field: key.range, direction }] };
    });
  });

/** Undefined: no paging check for that query, which keeps the run short (limit 1 costs a read per record). */
const limitArb = fc.option(fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 50 })), { nil: undefined, freq: 2 });

// ---------------------------------------------------------------------------------------------
// Comparison.

const keyOf = (item: Item): string => JSON.stringify([item.pk, item.sk]);
const byKey = (a: Item, b: Item): number => compareStrings(keyOf(a), keyOf(b));
const sortedByKey = (items: readonly Item[]): Item[] => [...items].sort(byKey);

function joined(pages: readonly Page[], limit: number, context: string): Item[] {
  pages.forEach((page, index) => {
    const last = index === pages.length - 1;
    // A page short of the limit with a `next` (or an empty one before the end) is an early end.
    if (!last) expect(page.items.length, `${context}: page ${index + 1} of ${pages.length} is short`).toBe(limit);
  });
  // A `next` promises more matches: the page it leads to cannot be empty.
  if (pages.length > 1) expect(pages.at(-1)?.items.length, `${context}: the page after a \`next\` is empty`).toBeGreaterThan(0);
  const items = pages.flatMap((page) => page.items);
  expect(new Set(items.map(keyOf)).size, `${context}: a record appears on two pages`).toBe(items.length);
  return items;
}

async function readBoth(repository: Repository, query: Query, limit: number | undefined, label: string, context: string): Promise<Item[]> {
  const request = { ...(query.where ? { where: query.where } : {}), orderBy: query.orderBy };
  const [whole, ...more] = await allPages(repository, { ...request, limit: 1000 });
  expect(more, `${context}\n${label}: more than one page under a limit above the data size`).toEqual([]);
  const all = whole?.items ?? [];
  if (limit === undefined) return all;
  const paged = joined(await allPages(repository, { ...request, limit }), limit, `${context}\n${label} limit ${limit}`);
  if (query.orderBy.length > 0) {
    expect(paged.map(keyOf), `${context}\n${label}: pages joined differ from one read`).toEqual(all.map(keyOf));
  } else {
    expect(sortedByKey(paged).map(keyOf), `${context}\n${label}: pages joined differ from one read`).toEqual(sortedByKey(all).map(keyOf));
  }
  return all;
}

function describeRun(text: string, query: Query, data: readonly Item[]): string {
  const plan = planDynamoQuery(query, shape);
  return `query: ${text}\nplan: ${JSON.stringify(plan)}\ndata: ${JSON.stringify(data)}`;
}

interface Stores {
  data: Item[];
  memory: MemoryRepository;
  dynamo: DynamoRepository;
}

async function checkAgreement(stores: Stores, generated: Query, limit: number | undefined): Promise<void> {
  const text = printQuery(generated);
  // Going through the text also checks that every generated tree prints and parses back.
  const query = parseQuery(text);
  expect(query, `printed as ${text}`).toEqual(generated);
  const context = describeRun(text, query, stores.data);

  const expected = sortedByKey(stores.data.filter((item) => query.where === undefined || evaluate(query.where, item)));
  const fromMemory = await readBoth(stores.memory, query, limit, "memory", context);
  const fromDynamo = await readBoth(stores.dynamo, query, limit, "dynamodb", context);
  expect(sortedByKey(fromMemory), `${context}\nmemory differs from evaluate`).toEqual(expected);
  expect(sortedByKey(fromDynamo), `${context}\nDynamoDB differs from evaluate`).toEqual(expected);

  const [order] = query.orderBy;
  if (order !== undefined) {
    // Ties on an index range key have no defined order in DynamoDB, so compare the keys' values.
    const values = (items: Item[]): unknown[] => items.map((item) => item[order.field]);
    expect(values(fromDynamo), `${context}\nDynamoDB order differs from memory`).toEqual(values(fromMemory));
  }
}

/** Each predicate alone, or negated: one cheap Scan each, so every construct meets every stored type. */
const singleArb: fc.Arbitrary<Query> = fc
  .tuple(predicateArb, fc.boolean())
  .map(([predicate, negate]): Query => ({ where: negate ? { kind: "not", operand: predicate } : predicate, orderBy: [] }));

describe("query language: memory, evaluate and DynamoDB Local agree", () => {
  it(
    "selects the same records, and pages join up to the unpaginated result",
    async () => {
      const details = await fc.check(
        fc.asyncProperty(
          fc.noBias(dataSetArb),
          fc.noBias(fc.array(singleArb, { minLength: SINGLES_PER_RUN, maxLength: SINGLES_PER_RUN })),
          fc.noBias(fc.array(fc.tuple(queryArb, limitArb), { minLength: QUERIES_PER_RUN / 2, maxLength: QUERIES_PER_RUN })),
          async (rawData, singles, queries) => {
            const stores: Stores = {
              data: rawData.map((item) => ({ ...item, __version: 1 })),
              memory: new MemoryRepository(shape),
              dynamo: new DynamoRepository(documents, tableName, shape),
            };
            for (const item of rawData) await stores.memory.create(item);
            await putItems(documents, tableName, stores.data);
            try {
              for (const query of singles) await checkAgreement(stores, query, undefined);
              for (const [query, limit] of queries) await checkAgreement(stores, query, limit);
            } finally {
              const keys = stores.data.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
              await deleteItems(documents, tableName, keys);
            }
          },
        ),
        // Each shrinking step rewrites a data set and replays its queries: past the budget
        // fast-check reports the smallest failure reached so far instead of the test timing out.
        { numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(TIME_BUDGET_MS)] },
      );
      // Time-boxed: a run cut short by the budget must not pass on however few runs it made.
      console.info(
        `[query equivalence] ${details.numRuns} runs of at least ${RUNS} (seed ${details.seed}${details.interrupted ? ", interrupted by the time budget" : ""})`,
      );
      if (details.failed) throw new Error(fc.defaultReportMessage(details));
      expect(details.numRuns, "runs made before the time budget").toBeGreaterThanOrEqual(RUNS);
    },
    TIME_BUDGET_MS + 60_000,
  );
});
