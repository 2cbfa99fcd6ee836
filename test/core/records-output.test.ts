import { describe, expect, it } from "vitest";
import { Behavior } from "../../lib/core/behavior.ts";
import { Context } from "../../lib/core/context.ts";
import { Model } from "../../lib/core/model.ts";
import { describeModel } from "../../lib/core/model-info.ts";
import { toOutput } from "../../lib/core/records.ts";
import { Type } from "../../lib/core/schema.ts";

class Counter extends Behavior {}

/** No `redact` of its own: the output is built without instantiating the record. */
class Plain extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({
    id: Type.String(),
    owner: Type.String(),
    note: Type.Optional(Type.String()),
    meta: Type.Optional(Type.Object({})),
    tags: Type.Optional(Type.Array(Type.Object({}))),
  });
  static override readonly fieldReaders = {
    note: (ctx: Context, r?: Readonly<Record<string, unknown>>) => r !== undefined && ctx.getCurrentUserId() === r.owner,
  };
  static override readonly behaviors = { counter: Counter };
}

/** A `redact` that reads the instance (`this`) and the behavior objects. */
class Custom extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String(), owner: Type.String(), title: Type.String() });
  static override readonly behaviors = { counter: Counter };
  override redact(ctx: Context, data: Record<string, unknown>): Record<string, unknown> {
    const self = this as unknown as { owner: string; counter: unknown };
    return { ...data, title: ctx.getCurrentUserId() === self.owner ? data.title : "(hidden)", counted: self.counter instanceof Counter };
  }
}

const stored = {
  id: "a",
  owner: "ann",
  note: "private",
  counter: { n: 3 },
  __version: 4,
  __secret: "s",
  meta: { visible: 1, __inner: "x", deep: { __deeper: 1, kept: true } },
  tags: [{ name: "t", __hidden: 1 }],
};

describe("toOutput", () => {
  it("drops `__` data at every depth, behavior state and fields the caller may not read, and leaves the stored record as it was", () => {
    const before = structuredClone(stored);
    const bob = toOutput(new Context({ userId: "bob" }), describeModel(Plain), stored);
    expect(bob).toEqual({ id: "a", owner: "ann", meta: { visible: 1, deep: { kept: true } }, tags: [{ name: "t" }] });
    expect(toOutput(new Context({ userId: "ann" }), describeModel(Plain), stored)).toHaveProperty("note", "private");
    expect(stored).toEqual(before);
    expect(bob.meta).not.toBe(stored.meta);
  });

  it("calls a model's own redact on an instance holding the record and its behaviors", () => {
    const record = { id: "b", owner: "ann", title: "Draft", counter: { n: 1 }, __version: 1 };
    expect(toOutput(new Context({ userId: "bob" }), describeModel(Custom), record)).toEqual({ id: "b", owner: "ann", title: "(hidden)", counted: true });
    expect(toOutput(new Context({ userId: "ann" }), describeModel(Custom), record)).toMatchObject({ title: "Draft", counted: true });
  });
});
