import {
  GraphQLBoolean, GraphQLEnumType, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString,
  type GraphQLFieldConfigMap,
} from "graphql";
import { describe, expect, it } from "vitest";
import { Batcher } from "../../lib/graphql/batcher.ts";
import { AnyScalar, DateScalar, LongScalar } from "../../lib/graphql/scalars.ts";
import { runBoth } from "./differential.ts";

/**
 * Fault injection for the differential check of our executor against graphql-js's `execute`: a
 * schema whose resolvers fail on purpose (sync and async, nullable and non-null, at every depth),
 * return bad leaves, lists of promises, iterables and function properties. Each run gets its own
 * context, which logs resolver calls and batched loads so that their order can be compared too.
 */
interface Node {
  id: string;
  depth: number;
  /** A function property: graphql-js's default resolver calls it with (args, context, info). */
  greet?: (args: Record<string, unknown>, context: Ctx, info: { fieldName: string; path: unknown }) => string;
}

interface Ctx {
  log: string[];
  loader: Batcher<string, Node | null>;
}

function context(): Ctx {
  const log: string[] = [];
  const loader = new Batcher<string, Node | null>(
    (id) => id,
    async (ids) => {
      log.push(`batch ${ids.join(",")}`);
      await Promise.resolve();
      return new Map(ids.filter((id) => !id.startsWith("missing")).map((id) => [id, node(id, Number(id.slice(id.lastIndexOf("-") + 1)))]));
    },
    null,
  );
  return { log, loader };
}

function node(id: string, depth: number): Node {
  return { id, depth, greet: (args, ctx, info) => `hello ${String(args.to ?? "")} from ${info.fieldName} at ${JSON.stringify(info.path)}` };
}

const Color = new GraphQLEnumType({ name: "Color", values: { RED: { value: "r" }, GREEN: { value: "g" }, BLUE: {} } });

const fail = (message: string) => { throw new Error(message); };
const later = <T>(value: T, ticks = 1): Promise<T> => (!(ticks > 0) ? Promise.resolve(value) : Promise.resolve().then(() => later(value, ticks - 1)));

const Item: GraphQLObjectType<Node, Ctx> = new GraphQLObjectType<Node, Ctx>({
  name: "Item",
  fields: (): GraphQLFieldConfigMap<Node, Ctx> => ({
    id: { type: new GraphQLNonNull(GraphQLID) },
    depth: { type: GraphQLInt },
    name: { type: GraphQLString, resolve: (n, _a, ctx) => { ctx.log.push(`name ${n.id}`); return `item ${n.id}`; } },
    color: { type: Color, args: { pick: { type: GraphQLString } }, resolve: (n, a: { pick?: string | null }) => a.pick ?? (n.depth % 2 === 0 ? "r" : "g") },
    count: { type: LongScalar, args: { value: { type: LongScalar } }, resolve: (n, a: { value?: number | null }) => a.value ?? n.depth * 10 },
    when: { type: DateScalar, args: { value: { type: GraphQLString } }, resolve: (_n, a: { value?: string | null }) => a.value ?? "2024-05-01T12:00:00Z" },
    any: { type: AnyScalar, resolve: (n) => ({ nested: [n.depth, { id: n.id }], flag: true }) },
    fails: { type: GraphQLString, resolve: (n) => fail(`fails at ${n.id}`) },
    failsAsync: { type: GraphQLString, resolve: async (n) => { await later(null, n.depth); throw new Error(`async fail at ${n.id}`); } },
    strict: { type: new GraphQLNonNull(GraphQLString), args: { ok: { type: GraphQLBoolean } }, resolve: (n, a: { ok?: boolean | null }) => (a.ok ? `ok ${n.id}` : null) },
    strictFails: { type: new GraphQLNonNull(GraphQLString), resolve: async (n) => { await later(null, 2); throw new Error(`strict fail at ${n.id}`); } },
    errorValue: { type: GraphQLString, resolve: (n) => new Error(`returned error at ${n.id}`) },
    badLong: { type: LongScalar, resolve: () => 2 ** 60 },
    badColor: { type: Color, resolve: () => "purple" },
    badDate: { type: DateScalar, resolve: () => "yesterday" },
    greet: { type: GraphQLString, args: { to: { type: GraphQLString } } },
    child: { type: Item, args: { missing: { type: GraphQLBoolean } }, resolve: (n, a: { missing?: boolean | null }, ctx) => ctx.loader.load(a.missing ? `missing-${n.depth + 1}` : `${n.id}/c-${n.depth + 1}`) },
    strictChild: { type: new GraphQLNonNull(Item), resolve: (n, _a, ctx) => ctx.loader.load(`${n.id}/s-${n.depth + 1}`) },
    children: {
      type: new GraphQLList(new GraphQLNonNull(Item)),
      args: { n: { type: GraphQLInt, defaultValue: 2 }, failAt: { type: GraphQLInt } },
      resolve: (p, a: { n: number; failAt?: number | null }) =>
        Array.from({ length: a.n }, (_, i) => (i === a.failAt ? Promise.reject(new Error(`child ${i} of ${p.id} failed`)) : later(node(`${p.id}/k${i}-${p.depth + 1}`, p.depth + 1), i % 2))),
    },
    loose: {
      type: new GraphQLList(Item),
      args: { n: { type: GraphQLInt, defaultValue: 3 } },
      resolve: (p, a: { n: number }) => Array.from({ length: a.n }, (_, i) => (i % 3 === 1 ? null : i % 3 === 2 ? new Error(`loose ${i} of ${p.id}`) : node(`${p.id}/l${i}-${p.depth + 1}`, p.depth + 1))),
    },
    numbers: { type: new GraphQLList(GraphQLInt), resolve: function* () { yield 1; yield 2; yield 3; } },
    notIterable: { type: new GraphQLList(GraphQLInt), resolve: () => 5 },
    strictNumbers: { type: new GraphQLList(new GraphQLNonNull(GraphQLInt)), resolve: () => [1, null, 3] },
  }),
});

let counter = 0;
const Query = new GraphQLObjectType<unknown, Ctx>({
  name: "Query",
  fields: {
    item: { type: Item, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: (_s, a: { id: string }, ctx) => ctx.loader.load(`${a.id}-0`) },
    items: { type: new GraphQLList(Item), args: { ids: { type: new GraphQLList(new GraphQLNonNull(GraphQLID)) } }, resolve: (_s, a: { ids?: string[] | null }, ctx) => (a.ids ?? ["a", "b"]).map((id) => ctx.loader.load(`${id}-0`)) },
    strictItem: { type: new GraphQLNonNull(Item), args: { broken: { type: GraphQLBoolean } }, resolve: (_s, a: { broken?: boolean | null }) => (a.broken ? null : node("root-0", 0)) },
    echo: { type: GraphQLString, args: { text: { type: GraphQLString, defaultValue: "default" }, color: { type: Color } }, resolve: (_s, a: { text: string; color?: string }) => `${a.text}/${String(a.color)}` },
    now: { type: GraphQLInt, resolve: () => ++counter },
  },
});

const Mutation = new GraphQLObjectType<unknown, Ctx>({
  name: "Mutation",
  fields: {
    push: { type: new GraphQLList(GraphQLString), args: { value: { type: new GraphQLNonNull(GraphQLString) }, ticks: { type: GraphQLInt, defaultValue: 0 } }, resolve: async (_s, a: { value: string; ticks: number }, ctx) => {
      ctx.log.push(`start ${a.value}`);
      await later(null, a.ticks);
      ctx.log.push(`end ${a.value}`);
      return [...ctx.log];
    } },
    refuse: { type: GraphQLString, resolve: async (_s, _a, ctx) => { ctx.log.push("refuse"); await later(null, 1); throw new Error("refused"); } },
    strictRefuse: { type: new GraphQLNonNull(GraphQLString), resolve: (_s, _a, ctx) => { ctx.log.push("strict refuse"); return null; } },
  },
});

const schema = new GraphQLSchema({ query: Query, mutation: Mutation });

async function same(source: string, variables?: Record<string, unknown>, operationName?: string): Promise<void> {
  const logs: string[][] = [];
  const runs = await runBoth(schema, source, {
    ...(variables ? { variables } : {}),
    ...(operationName ? { operationName } : {}),
    context: () => {
      const ctx = context();
      logs.push(ctx.log);
      counter = 0;
      return ctx;
    },
  });
  expect(runs.compiled.planned, "ran on a plan").toBe(true);
  expect(runs.compiled.json).toBe(runs.graphqlJs.json);
  // The same resolvers in the same order, and the same loads batched together.
  expect(logs[1]).toEqual(logs[0]);
}

const ALL_FIELDS = "id depth name color count when any greet(to: \"you\") numbers";

describe("our executor against graphql-js's execute (fault injection)", () => {
  it.each([
    ["leaves, enums, custom scalars, a function property, an iterable", `{ item(id: "a") { ${ALL_FIELDS} } }`],
    ["aliases, __typename and repeated fields merged", `{ __typename x: item(id: "a") { __typename a: id, id b: name name name c: color(pick: "g") } y: item(id: "b") { id } }`],
    ["nested lists of promises, every item's resolvers before any await", `{ items(ids: ["a", "b", "c"]) { id child { id name child { id name } } children(n: 3) { id child { id } } } }`],
    ["nullable errors at several depths, sync and async", `{ item(id: "a") { fails failsAsync child { fails failsAsync child { failsAsync errorValue } } } }`],
    ["async errors at several depths racing, in settling order", `{ items(ids: ["a", "b"]) { failsAsync child { failsAsync child { failsAsync } } children(n: 3) { failsAsync child { failsAsync } } } }`],
    ["propagated and direct errors racing (1)", `{ item(id: "a") { a: child { strictFails } b: child { id failsAsync } failsAsync } }`],
    ["propagated and direct errors racing (2)", `{ items(ids: ["a", "b", "c"]) { child { strictChild { strict } } failsAsync } }`],
    ["propagated and direct errors racing (3)", `{ a: strictItem { children(n: 2) { strictFails } } b: item(id: "x") { failsAsync child { failsAsync child { failsAsync } } } }`],
    ["propagated and direct errors racing (4)", `{ item(id: "a") { child { child { strictChild { strict } } } x: child { failsAsync child { failsAsync } } } }`],
    ["a non-null failure nulls the nearest nullable parent; later errors beneath it are dropped", `{ item(id: "a") { id child { id strictFails failsAsync child { failsAsync } } other: child { id } } }`],
    ["null for a non-null field, and in a non-null list item", `{ item(id: "a") { id strict children(n: 3, failAt: 1) { id } loose { id } strictNumbers } }`],
    ["a non-null field that resolves", `{ item(id: "a") { strict(ok: true) } }`],
    ["leaves that do not serialise", `{ item(id: "a") { badLong badColor badDate count(value: 5) } }`],
    ["a missing record, a non-null child", `{ item(id: "a") { child(missing: true) { id } strictChild { id strictChild { id strict } } } }`],
    ["not a list", `{ item(id: "a") { notIterable } }`],
    ["a missing root record", `{ item(id: "missing") { id } }`],
    ["a non-null root field failing: data null", `{ now strictItem(broken: true) { id } item(id: "a") { failsAsync } }`],
    ["a non-null root field resolving", `{ strictItem { id depth children { id } } }`],
    ["fragments and inline fragments, nested and repeated", `
      query { item(id: "a") { ...A ... on Item { name child { ...B } } ...A } }
      fragment A on Item { id color child { id ...B } }
      fragment B on Item { name depth ... { count } }`],
    ["literal @skip and @include", `{ item(id: "a") { id @skip(if: true) name @include(if: false) color @include(if: true) ... @skip(if: true) { depth } child @skip(if: false) { id } } }`],
    ["default argument values and enum literals", `{ echo a: echo(text: "t") b: echo(color: RED) c: echo(text: null) }`],
  ])("%s", async (_name, source) => same(source));

  it.each([
    [{ s: true, i: true }],
    [{ s: false, i: true }],
    [{ s: true, i: false }],
    [{ s: false, i: false }],
    [{ s: false }],
  ])("@skip/@include from variables %j, plans reused per combination", async (variables) => {
    const source = `query($s: Boolean!, $i: Boolean = true) {
      item(id: "a") { id name @skip(if: $s) child @include(if: $i) { id ...F @skip(if: $s) } ...F @include(if: $i) }
    }
    fragment F on Item { color depth @skip(if: $s) }`;
    await same(source, variables);
  });

  it.each([
    [{ ids: ["x", "y"], t: "hi", c: "GREEN", n: 4, v: 12, d: "2020-01-01T00:00:00Z" }],
    [{ t: null }],
    [{}],
  ])("variables, their defaults and coercion, for %j", async (variables) => {
    await same(`query($ids: [ID!], $t: String = "dflt", $c: Color, $n: Int = 1, $v: Long, $d: String) {
      items(ids: $ids) { id children(n: $n) { id count(value: $v) when(value: $d) } }
      echo(text: $t, color: $c)
    }`, variables);
  });

  it.each([
    [{ n: "three" }],
    [{ c: "PURPLE" }],
    [{ v: 2 ** 60 }],
  ])("variables that do not coerce answer graphql-js's errors and no data: %j", async (variables) => {
    await same(`query($n: Int, $c: Color, $v: Long) { item(id: "a") { children(n: $n) { id count(value: $v) } } echo(color: $c) }`, variables);
  });

  it("a null variable into a non-null argument fails that field, for every item of a list", async () => {
    await same(`query($n: Int) { items { children(n: $n) { id } } }`, { n: null });
  });

  it("runs a mutation's root fields one after another, in document order, errors in place", async () => {
    await same(`mutation { a: push(value: "a", ticks: 3) b: refuse c: push(value: "c", ticks: 1) d: push(value: "d") }`);
  });

  it("a mutation's non-null root field failing: data null, and the fields after it never run", async () => {
    await same(`mutation { a: push(value: "a", ticks: 2) b: strictRefuse c: push(value: "c") }`);
  });

  it("the operation named, among several", async () => {
    await same(`query One { now } query Two { item(id: "a") { id } } mutation Three { push(value: "x") }`, undefined, "Two");
    await same(`query One { now } query Two { item(id: "a") { id } } mutation Three { push(value: "x") }`, undefined, "Three");
  });

  it("declines introspection, which graphql-js then runs", async () => {
    const runs = await runBoth(schema, `{ __schema { queryType { name } } item(id: "a") { id } }`, { context });
    expect(runs.compiled.planned).toBe(false);
    const typed = await runBoth(schema, `{ __type(name: "Item") { name } }`, { context });
    expect(typed.compiled.planned).toBe(false);
  });

  it("declines a `__proto__` response name, which a plain object would take as its prototype", async () => {
    const runs = await runBoth(schema, `{ __proto__: now }`, { context });
    expect(runs.compiled.planned).toBe(false);
  });
});
