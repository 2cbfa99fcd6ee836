import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { scopedQuery } from "../../lib/core/scoped-query.ts";
import { belongsTo, contains, Model, Type, type Action, type Context, type Decision, type FieldReader, type RelationDeclarations } from "../../lib/index.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { as, model } from "../support/blog.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";

const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;

/** A board is public when open, its owner's alone when closed. */
class Board extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["slug"] as const;
  static override readonly schema = Type.Object({ slug: Type.String({ minLength: 1 }), owner: Type.String(), open: Type.Boolean() });
  static override readonly relations: RelationDeclarations = { notes: contains(() => Note, "board") };
  declare open: boolean;
  declare owner: string;
  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return this.open || ctx.getCurrentUserId() === this.owner ? true : "closed";
    return ctx.getCurrentUserId() !== undefined ? true : "sign in";
  }
}

/** A note follows its board's visibility; a private one is its author's alone, and so is its secret. */
class Note extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String(),
    board: Type.String({ minLength: 1 }),
    author: Type.String(),
    rank: Type.Integer(),
    text: Type.String(),
    secret: Type.String(),
    private: Type.Boolean(),
  });
  static override readonly relations: RelationDeclarations = { board: belongsTo(() => Board, { requires: { read: "read", create: "read" } }) };
  static override readonly indexes = [{ name: "by_board", hash: "board", range: "rank" }];
  static override readonly fieldReaders: Readonly<Record<string, FieldReader>> = {
    secret: (ctx, record) => record !== undefined && ctx.getCurrentUserId() === record.author,
  };
  declare author: string;
  declare private: boolean;
  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return !this.private || ctx.getCurrentUserId() === this.author ? true : "private";
    return ctx.getCurrentUserId() === this.author ? true : "not yours";
  }
}

const prefix = `notes-${randomUUID().slice(0, 8)}-`;
const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
const commands: string[] = [];
documents.middlewareStack.add(
  (next, context) => (args) => {
    commands.push((context.commandName ?? "unknown").replace(/Command$/, ""));
    return next(args);
  },
  { step: "initialize", name: "countCommands" },
);

const app = new Application({ name: "notes", version: "1", models: [Board, Note], serviceTypes: [], services: {} }, inProcess).useStore(
  (name, table) => new DynamoRepository(documents, tableName(prefix, name), table),
);
const BoardInfo = model(app, "Board");
const NoteInfo = model(app, "Note");
/** Notes per board: none, fewer than a page, exactly a page, many more. */
const COUNTS = [0, 1, 2, 3, 4, 7, 12, 0, 5, 9];
let restore: () => void;

beforeAll(async () => {
  restore = enableTestUser();
  await createModelTables(app, prefix);
  await Promise.all(COUNTS.map((_, b) => app.domain.create(as(ALICE), BoardInfo, { slug: `b${b}`, owner: ALICE, open: b !== 4 })));
  for (const [b, count] of COUNTS.entries()) {
    await Promise.all(
      Array.from({ length: count }, (_, n) => {
        const author = n % 2 === 0 || b === 4 ? ALICE : BOB;
        return app.domain.create(as(author), NoteInfo, {
          uuid: randomUUID(),
          board: `b${b}`,
          author,
          rank: (n * 7) % 13,
          text: `b${b} n${n}`,
          secret: `s${b}-${n}`,
          private: n % 3 === 2,
        });
      }),
    );
  }
}, 120_000);

afterAll(() => {
  restore();
  documents.destroy();
});

interface NotesPage {
  results: { uuid: string; text: string; secret: string | null; author: string }[];
  continuationToken: string | null;
}

const g = graphqlBlog({}, app);

/** The unbatched answer: the domain's query for one board, as the contains field made it before. */
async function alone(
  user: string | undefined,
  slug: string,
  q: string,
  limit: number,
  offset?: string,
): Promise<{ texts: string[]; secrets: (string | undefined)[]; token: string | null }> {
  const page = await app.domain.query(
    as(user),
    NoteInfo,
    { q: scopedQuery({ board: slug }, q), limit, ...(offset ? { offset } : {}) },
    { info: BoardInfo, key: slug },
  );
  return { texts: page.results.map((r) => String(r.text)), secrets: page.results.map((r) => r.secret as string | undefined), token: page.continuationToken };
}

describe("contains relations batched over the parents in view (DynamoDB Local)", () => {
  for (const [who, user] of [
    ["anonymous", undefined],
    ["the owner", ALICE],
    ["another user", BOB],
  ] as const) {
    for (const [q, limit] of [
      ["", 3],
      ["rank >= 3 ORDER BY rank DESC", 2],
      ["author = '" + BOB + "'", 50],
    ] as const) {
      it(`gives ${who} every board's page as its own query does (${q || "no query"}, limit ${limit}), in one listing and one IN`, async () => {
        commands.length = 0;
        const data = await g.data(
          `query($q: String) { Boards(limit: 20) { results { slug notes(query: $q, limit: ${limit}) { results { uuid text secret author } continuationToken } } } }`,
          {
            variables: { q },
            ...(user ? { user } : {}),
          },
        );
        expect(commands.filter((c) => c !== "Scan")).toEqual(["ExecuteStatement"]);
        const boards = (data.Boards as { results: { slug: string; notes: NotesPage }[] }).results;
        // The closed board is its owner's alone, and so are its notes.
        expect(boards.map((b) => b.slug).sort()).toEqual(COUNTS.flatMap((_, b) => (b === 4 && user !== ALICE ? [] : [`b${b}`])).sort());
        for (const { slug, notes } of boards) {
          const expected = await alone(user, slug, q, limit);
          expect(
            notes.results.map((n) => n.text),
            slug,
          ).toEqual(expected.texts);
          expect(
            notes.results.map((n) => n.secret ?? undefined),
            slug,
          ).toEqual(expected.secrets);
          // Private notes and secrets of someone else never come through the batch.
          for (const n of notes.results) {
            if (n.author !== user) expect(n.secret).toBeNull();
            expect((await app.repository(NoteInfo).get({ uuid: n.uuid }))?.private !== true || n.author === user).toBe(true);
          }
          expect(notes.continuationToken !== null, slug).toBe(expected.token !== null);
          if (notes.continuationToken && expected.token) {
            // The batched page's token resumes exactly where the board's own token does.
            const next = await g.data(
              `query($s: String!, $q: String, $l: Long, $o: String) { Board(slug: $s) { notes(query: $q, limit: $l, offset: $o) { results { text } } } }`,
              {
                variables: { s: slug, q, l: limit, o: notes.continuationToken },
                ...(user ? { user } : {}),
              },
            );
            const resumed = (next.Board as { notes: { results: { text: string }[] } }).notes.results.map((n) => n.text);
            expect(resumed.length).toBeGreaterThan(0);
            expect(resumed, `${slug} resumed`).toEqual((await alone(user, slug, q, limit, expected.token)).texts);
          }
        }
      });
    }
  }

  it("resumes one parent's children from its token among many parents, the others refusing that token, as each did alone", async () => {
    const first = await g.data(`{ Board(slug: "b6") { notes(limit: 3) { results { text } continuationToken } } }`);
    const token = (first.Board as { notes: NotesPage }).notes.continuationToken;
    expect(token).not.toBeNull();
    const answer = await g.post(`query($o: String) { Boards(limit: 20) { results { slug notes(limit: 3, offset: $o) { results { text } } } } }`, {
      variables: { o: token },
    });
    const boards = (answer.body.data?.Boards as { results: { slug: string; notes: { results: { text: string }[] } | null }[] }).results;
    expect(boards.find((b) => b.slug === "b6")?.notes?.results.map((n) => n.text)).toEqual((await alone(undefined, "b6", "", 3, token ?? undefined)).texts);
    expect(boards.filter((b) => b.slug !== "b6").every((b) => b.notes === null)).toBe(true);
    expect(answer.body.errors?.map((e) => e.extensions.code)).toEqual(boards.filter((b) => b.slug !== "b6").map(() => "BAD_QUERY"));
  });

  it("answers a bad query or limit on every parent with the same error as before, reading no children", async () => {
    commands.length = 0;
    const answer = await g.post(`{ Boards(limit: 3) { results { slug notes(limit: 0) { results { text } } } } }`);
    expect(answer.body.errors?.map((e) => e.extensions.code)).toEqual(["BAD_QUERY", "BAD_QUERY", "BAD_QUERY"]);
    expect(commands.filter((c) => c !== "Scan")).toEqual([]);
  });
});
