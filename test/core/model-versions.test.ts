import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { marshall } from "@aws-sdk/util-dynamodb";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { ValidationError } from "../../lib/core/errors.ts";
import { describeModel } from "../../lib/core/model-info.ts";
import { Model } from "../../lib/core/model.ts";
import { contractProblems, recordContracts } from "../../lib/core/record-contract.ts";
import { MODEL_VERSION_FIELD, wasUpgraded } from "../../lib/core/record-upgrade.ts";
import { Type } from "../../lib/core/schema.ts";
import { buildCache, recordsCache, RECORDS_FILE } from "../../lib/cli/records-cache.ts";
import { lifecycleEventsOf } from "../../lib/realtime/stream-events.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { Article, ArticleV1, ArticleWithoutDefault, articlesApp } from "../fixtures/records-app/articles.ts";
import { as } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

const lines = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
};

describe("a required field added with neither a default nor an upgrade step", () => {
  it("is refused by the build, naming the model, the field and why, and the cache is left as it was", async () => {
    const dir = await mkdtemp(join(tmpdir(), "records-cache-"));
    try {
      const first = lines();
      expect(await buildCache(articlesApp(ArticleV1, inProcess), dir, [recordsCache], first.io)).toBe(0);
      const v1 = await readFile(join(dir, RECORDS_FILE), "utf8");

      const refused = lines();
      expect(await buildCache(articlesApp(ArticleWithoutDefault, inProcess), dir, [recordsCache], refused.io)).toBe(1);
      expect(refused.err.join("\n")).toMatch(/refused/);
      expect(refused.err.join("\n")).toMatch(
        /Article\.summary: a required field added with neither a default nor an upgrade step: records stored before this build lack it/,
      );
      expect(refused.err.join("\n")).toMatch(/Give it a `default`, or raise Article\.version to 2 with an upgrade step `upgrades\[1\]`/);
      // Nothing written: building again refuses again (the baseline is the last successful build).
      expect(await readFile(join(dir, RECORDS_FILE), "utf8")).toBe(v1);
      expect(await buildCache(articlesApp(ArticleWithoutDefault, inProcess), dir, [recordsCache], lines().io)).toBe(1);

      // The same field with a default, or a version with its step, builds.
      const fixed = lines();
      expect(await buildCache(articlesApp(Article, inProcess), dir, [recordsCache], fixed.io)).toBe(0);
      expect(JSON.parse(await readFile(join(dir, RECORDS_FILE), "utf8"))).toMatchObject({ Article: { version: 2, defaults: ["summary", "status", "tags"] } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a field made required, a type changed and allowed values narrowed are refused alike without a version step", () => {
    class Before extends Model {
      static override readonly schema = Type.Object({
        uuid: Type.String(),
        note: Type.Optional(Type.String()),
        count: Type.Optional(Type.String()),
        kind: Type.Union([Type.Literal("a"), Type.Literal("b")]),
      });
    }
    class After extends Model {
      static override readonly schema = Type.Object({
        uuid: Type.String(),
        note: Type.String(),
        count: Type.Optional(Type.Integer()),
        kind: Type.Union([Type.Literal("a")]),
      });
    }
    Object.defineProperty(After, "name", { value: "Before" });
    const problems = contractProblems(recordContracts([describeModel(Before)]), [describeModel(After)]);
    expect(problems).toEqual([
      expect.stringMatching(/^Before\.note: a required field that was optional with neither a default nor an upgrade step/),
      expect.stringMatching(/^Before\.count: its type changed from "string" to "integer"/),
      expect.stringMatching(/^Before\.kind: no longer allows "b"/),
    ]);
    class Stepped extends After {
      static override readonly version = 2;
      static override readonly upgrades = { 1: (r: Record<string, unknown>) => r };
    }
    Object.defineProperty(Stepped, "name", { value: "Before" });
    expect(contractProblems(recordContracts([describeModel(Before)]), [describeModel(Stepped)])).toEqual([]);
  });
});

describe("model versions are refused at app construction when inconsistent", () => {
  it("a missing step, a stray step, a version that is not a whole number", () => {
    class Three extends Model {
      static override readonly schema = Type.Object({ uuid: Type.String() });
      static override readonly version = 3;
      static override readonly upgrades = { 1: (r: Record<string, unknown>) => r };
    }
    expect(() => new Application({ name: "x", version: "1", models: [Three], serviceTypes: [], services: {} }, inProcess)).toThrow(
      "Three: version 3 needs an upgrade step from every earlier version; upgrades[2] (version 2 -> 3) is missing",
    );
    class Stray extends Model {
      static override readonly schema = Type.Object({ uuid: Type.String() });
      static override readonly upgrades = { 1: (r: Record<string, unknown>) => r };
    }
    expect(() => describeModel(Stray)).toThrow(/Stray: upgrades\[1\] upgrades no record/);
    class Half extends Model {
      static override readonly schema = Type.Object({ uuid: Type.String() });
      static override readonly version = 1.5;
    }
    expect(() => describeModel(Half)).toThrow(/Half\.version must be a whole number from 1/);
  });
});

describe("upgrading a record", () => {
  const upgrade = describeModel(Article).upgrade;
  it("runs the steps from the record's version, then the defaults, keeping the key and __version", () => {
    const old = { slug: "k", title: "t", body: "b", __version: 4 };
    const current = upgrade.upgrade(old);
    expect(current).toEqual({
      slug: "k",
      title: "t",
      content: "b",
      summary: "(no summary)",
      status: "draft",
      tags: [],
      __version: 4,
      [MODEL_VERSION_FIELD]: 2,
    });
    expect(wasUpgraded(current)).toBe(true);
    expect(old).toEqual({ slug: "k", title: "t", body: "b", __version: 4 });
  });

  it("leaves a current record as it is (the same object), and a null defaulted field reads as its default", () => {
    const current = { slug: "k", title: "t", content: "c", summary: "s", status: "published", tags: ["x"], [MODEL_VERSION_FIELD]: 2 };
    expect(upgrade.upgrade(current)).toBe(current);
    expect(upgrade.needsUpgrade(current)).toBe(false);
    expect(upgrade.upgrade({ ...current, summary: null })).toMatchObject({ summary: "(no summary)" });
  });

  it("gives each record its own copy of an object default", () => {
    const a = upgrade.upgrade({ slug: "a", title: "t", [MODEL_VERSION_FIELD]: 2, content: "" });
    const b = upgrade.upgrade({ slug: "b", title: "t", [MODEL_VERSION_FIELD]: 2, content: "" });
    (a.tags as string[]).push("mutated");
    expect(b.tags).toEqual([]);
  });

  it("a step cannot change the key nor __version", () => {
    class Rekey extends Model {
      static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
      static override readonly schema = Type.Object({ id: Type.String(), n: Type.Optional(Type.Integer()) });
      static override readonly version = 2;
      static override readonly upgrades = { 1: (r: Record<string, unknown>) => ({ ...r, id: "other", __version: 99, n: 1 }) };
    }
    expect(describeModel(Rekey).upgrade.upgrade({ id: "mine", __version: 2 })).toEqual({ id: "mine", __version: 2, n: 1, [MODEL_VERSION_FIELD]: 2 });
  });

  it("a create leaves a defaulted field out and stores its default, with the model version", async () => {
    const app = articlesApp(Article, inProcess).useStore(memoryStore);
    const info = app.model("Article");
    if (!info) throw new Error("no Article");
    await app.domain.create(as(), info, { slug: "n", title: "t", content: "c" });
    const stored = await app.repository(info).get({ slug: "n" });
    expect(stored).toMatchObject({ summary: "(no summary)", status: "draft", tags: [], [MODEL_VERSION_FIELD]: 2 });
  });
});

describe("a stream's MODIFY of an in-place upgrade", () => {
  it("is no lifecycle event (nothing a subscriber sees changed); a real change of an old record still is", () => {
    const app = articlesApp(Article, inProcess);
    const old = { slug: "s", title: "t", body: "b", __version: 3 };
    const migrated = { ...describeModel(Article).upgrade.upgrade(old) };
    const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as never;
    const modify = (before: Record<string, unknown>, after: Record<string, unknown>) => ({
      eventName: "MODIFY" as const,
      eventSourceARN: "arn:aws:dynamodb:us-east-1:000000000000:table/p-Article/stream/x",
      dynamodb: { OldImage: image(before), NewImage: image(after) },
    });
    expect(lifecycleEventsOf(app, "p-", [modify(old, migrated)])).toEqual([]);
    const changed = lifecycleEventsOf(app, "p-", [modify(old, { ...old, title: "new", __version: 4 })]);
    expect(changed).toHaveLength(1);
    expect(changed[0]?.kind).toBe("Updated");
  });
});

describe("the whole-record check of a patch", () => {
  class Secretive extends Model {
    static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
    static override readonly schema = Type.Object({
      id: Type.String(),
      title: Type.String(),
      secret: Type.Optional(Type.String({ minLength: 5 })),
      note: Type.Optional(Type.String({ minLength: 5 })),
    });
    static override readonly fieldReaders = { secret: () => false };
    override canAct(): true {
      return true;
    }
  }

  it("names an invalid stored field the caller may read, never one hidden from them", async () => {
    const app = new Application({ name: "s", version: "1", models: [Secretive], serviceTypes: [], services: {} }, inProcess).useStore(memoryStore);
    const info = describeModel(Secretive);
    // Stored by another writer, below what the schema now allows.
    await app.repository(info).create({ id: "a", title: "t", secret: "abc" });
    const refused = (await app.domain.patch(as(), info, { id: "a" }, { title: "u" }).catch((e: unknown) => e)) as ValidationError;
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.errors).toEqual([{ path: "/", message: "the stored record holds a value the current schema refuses" }]);
    expect(JSON.stringify(refused.errors)).not.toMatch(/secret/);
    await app.repository(info).create({ id: "b", title: "t", note: "abc" });
    const named = (await app.domain.patch(as(), info, { id: "b" }, { title: "u" }).catch((e: unknown) => e)) as ValidationError;
    expect(named.errors).toEqual([{ path: "/note", message: expect.any(String) }]);
    expect((await app.repository(info).get({ id: "b" }))?.title).toBe("t");
  });
});
