import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { belongsTo, contains, manyToMany, Model, Type, type Action, type Context, type Decision, type RelationDeclarations } from "../../lib/index.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { buildGraphQLSchema } from "../../lib/graphql/schema.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { as, model } from "../support/blog.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";

const VOTER = `voter-${randomUUID()}`;
const OTHER = `other-${randomUUID()}`;
const signedIn = (ctx: Context): Decision => (ctx.getCurrentUserId() !== undefined ? true : "sign in");

class Label extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["slug"] as const;
  static override readonly schema = Type.Object({ slug: Type.String({ minLength: 1 }), name: Type.String() });
  override canAct(ctx: Context, action: Action): Decision {
    return action === "read" ? true : signedIn(ctx);
  }
}

/** A parent whose key is composite (left + right). */
class Pair extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["left", "right"] as const;
  static override readonly schema = Type.Object({ left: Type.String({ minLength: 1 }), right: Type.String({ minLength: 1 }), title: Type.String() });
  static override readonly relations: RelationDeclarations = {
    votes: contains(() => Vote, ["left", "right"]),
    labels: manyToMany(() => Label, { through: () => PairLabel, from: ["left", "right"], to: "label" }),
  };
  override canAct(ctx: Context, action: Action): Decision {
    return action === "read" ? true : signedIn(ctx);
  }
}

/** Children of a pair, read by `left` (an index ordered by rank) and matched on `right` too. */
class Vote extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String(),
    left: Type.String({ minLength: 1 }),
    right: Type.String({ minLength: 1 }),
    rank: Type.Integer(),
    voter: Type.String(),
    private: Type.Boolean(),
  });
  static override readonly indexes = [{ name: "by_left", hash: "left", range: "rank" }];
  declare voter: string;
  declare private: boolean;
  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return !this.private || ctx.getCurrentUserId() === this.voter ? true : "private";
    return ctx.getCurrentUserId() === this.voter ? true : "not yours";
  }
}

/** Join rows of pairs and labels; a hidden row is read by no one, so its label never shows. */
class PairLabel extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String(),
    left: Type.String(),
    right: Type.String(),
    label: Type.String(),
    hidden: Type.Boolean(),
  });
  static override readonly relations: RelationDeclarations = { label: belongsTo(() => Label) };
  static override readonly indexes = [{ name: "by_left", hash: "left", range: "uuid" }];
  declare hidden: boolean;
  override canAct(ctx: Context, action: Action): Decision {
    return action === "read" ? (this.hidden ? "hidden" : true) : signedIn(ctx);
  }
}

/** Pairs sharing a left part, so that one read by `left` holds the children of several parents. */
const PAIRS = [
  ["a", "x"],
  ["a", "y"],
  ["b", "x"],
  ["c", "z"],
] as const;
const VOTES: Record<string, number> = { "a/x": 4, "a/y": 2, "b/x": 1, "c/z": 0 };
const LABELS: Record<string, string[]> = { "a/x": ["red", "blue"], "a/y": ["green"], "b/x": [], "c/z": ["red"] };

const prefix = `pairs-${randomUUID().slice(0, 8)}-`;

function blogOf(store: "memory" | "dynamodb", commands: string[]): Application {
  const definition = { name: "pairs", version: "1", models: [Label, Pair, PairLabel, Vote], serviceTypes: [], services: {} };
  if (store === "memory") return new Application(definition, inProcess).useStore(memoryStore);
  const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
  documents.middlewareStack.add(
    (next, context) => (args) => {
      commands.push((context.commandName ?? "unknown").replace(/Command$/, ""));
      return next(args);
    },
    { step: "initialize", name: "countCommands" },
  );
  return new Application(definition, inProcess).useStore((name, table) => new DynamoRepository(documents, tableName(prefix, name), table));
}

async function seed(app: Application): Promise<void> {
  for (const slug of ["red", "green", "blue"]) await app.domain.create(as(VOTER), model(app, "Label"), { slug, name: slug.toUpperCase() });
  for (const [left, right] of PAIRS) {
    await app.domain.create(as(VOTER), model(app, "Pair"), { left, right, title: `${left}/${right}` });
    for (let n = 0; n < (VOTES[`${left}/${right}`] ?? 0); n++) {
      const voter = n % 2 === 0 ? VOTER : OTHER;
      // Ranks are distinct per `left`, the index's partition, across both pairs that share it.
      await app.domain.create(as(voter), model(app, "Vote"), { uuid: randomUUID(), left, right, rank: right === "x" ? n : 10 + n, voter, private: n === 1 });
    }
    for (const label of LABELS[`${left}/${right}`] ?? []) {
      await app.domain.create(as(VOTER), model(app, "PairLabel"), { uuid: randomUUID(), left, right, label, hidden: false });
    }
  }
  // A hidden join row, and a row of another pair sharing `left`: neither may show under a/x.
  await app.domain.create(as(VOTER), model(app, "PairLabel"), { uuid: randomUUID(), left: "a", right: "x", label: "green", hidden: true });
}

// Without ORDER BY the memory store lists by key and DynamoDB by the index: rank orders both.
const QUERY = `{ Pairs(limit: 10) { results { left right title votes(limit: 2, query: "ORDER BY rank ASC") { results { rank voter } continuationToken } labels { slug } } } }`;

interface PairView {
  left: string;
  right: string;
  votes: { results: { rank: number; voter: string }[]; continuationToken: string | null };
  labels: { slug: string }[];
}

let restore: () => void;
beforeAll(() => {
  restore = enableTestUser();
});
afterAll(() => restore());

for (const store of ["memory", "dynamodb"] as const) {
  describe(`relation fields of a composite-key parent (${store})`, () => {
    const commands: string[] = [];
    const app = blogOf(store, commands);
    const g = graphqlBlog({}, app);
    const rest = restHandler(app);

    beforeAll(async () => {
      if (store === "dynamodb") {
        await createModelTables(app, prefix);
      }
      await seed(app);
    }, 120_000);

    it("lists each pair's own children (both key parts matched), their first page in order, with the caller's permission", async () => {
      for (const user of [VOTER, OTHER]) {
        commands.length = 0;
        const data = await g.data(QUERY, { user });
        const pairs = (data.Pairs as { results: PairView[] }).results;
        expect(pairs.map((p) => `${p.left}/${p.right}`).sort()).toEqual(PAIRS.map(([l, r]) => `${l}/${r}`).sort());
        for (const pair of pairs) {
          const key = `${pair.left}/${pair.right}`;
          const base = pair.right === "x" ? 0 : 10;
          // Vote n=1 is private to OTHER (odd n are OTHER's).
          const visible = Array.from({ length: VOTES[key] ?? 0 }, (_, n) => n).filter((n) => n !== 1 || user === OTHER);
          expect(
            pair.votes.results.map((v) => v.rank),
            key,
          ).toEqual(visible.slice(0, 2).map((n) => base + n));
          expect(pair.votes.continuationToken !== null, key).toBe(visible.length > 2);
          expect(pair.labels.map((l) => l.slug).sort(), key).toEqual([...(LABELS[key] ?? [])].sort());
        }
        if (store === "dynamodb") {
          // One listing, then one IN per relation over the distinct `left` values, and the labels by key.
          expect(commands.filter((c) => c !== "Scan").sort()).toEqual(["BatchGetItem", "ExecuteStatement", "ExecuteStatement"]);
        }
      }
    });

    it("resumes a pair's children from its continuation token, and answers a single pair alike", async () => {
      const data = await g.data(
        `{ Pair(left: "a", right: "x") { votes(limit: 2, query: "ORDER BY rank ASC") { results { rank } continuationToken } labels { slug } } }`,
        { user: VOTER },
      );
      const first = (data.Pair as { votes: { results: { rank: number }[]; continuationToken: string } }).votes;
      expect(first.results.map((v) => v.rank)).toEqual([0, 2]);
      const next = await g.data(
        `query($o: String) { Pair(left: "a", right: "x") { votes(limit: 2, query: "ORDER BY rank ASC", offset: $o) { results { rank } continuationToken } } }`,
        {
          user: VOTER,
          variables: { o: first.continuationToken },
        },
      );
      expect((next.Pair as PairView).votes).toEqual({ results: [{ rank: 3 }], continuationToken: null });
    });

    it("gives over REST the parent by its composite key and the same children by querying the child on both key parts", async () => {
      const got = await call(rest, httpEvent("GET", "/pairs/a/x", { routeKey: "GET /pairs/{left}/{right}" }));
      expect(got.body).toMatchObject({ left: "a", right: "x", title: "a/x" });
      const children = await call(
        rest,
        httpEvent("PUT", "/votes", {
          routeKey: "PUT /votes",
          body: { q: "left = 'a' AND right = 'x' ORDER BY rank ASC", limit: 2 },
          headers: { "x-test-user": VOTER },
        }),
      );
      expect(children.statusCode).toBe(200);
      const graph = await g.data(`{ Pair(left: "a", right: "x") { votes(limit: 2, query: "ORDER BY rank ASC") { results { uuid rank } } } }`, { user: VOTER });
      expect((children.body as { results: { uuid: string }[] }).results.map((v) => v.uuid)).toEqual(
        (graph.Pair as { votes: { results: { uuid: string }[] } }).votes.results.map((v) => v.uuid),
      );
    });
  });
}

it("refuses at schema build a relation of a composite-key parent that names fewer attributes than its key has fields", () => {
  class Half extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = ["left", "right"] as const;
    static override readonly schema = Type.Object({ left: Type.String(), right: Type.String() });
    static override readonly relations: RelationDeclarations = { votes: contains(() => Vote, "left") };
  }
  const app = new Application({ name: "half", version: "1", models: [Half, Vote], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
  expect(() => buildGraphQLSchema(app).getTypeMap()).toThrow(/Half\.votes: names 1 attribute\(s\) for a key of 2 field\(s\)/);
});
