import { parse } from "graphql";
import { MessageType, stringifyMessage } from "graphql-ws";
import { describe, expect, it } from "vitest";
import { nextFrame } from "../../lib/realtime/fanout.ts";
import { createRealtime } from "../../lib/realtime/realtime.ts";
import { plainValueKey, readsOnlyThePayload } from "../../lib/realtime/shared-execution.ts";
import { blog } from "../support/blog.ts";
import { memoryRepositories } from "./support.ts";

const { schema } = createRealtime(blog(), { repositories: memoryRepositories() });

describe("which subscription documents read nothing but the delivered value", () => {
  it("accepts the record's own fields, fragments and __typename", () => {
    expect(readsOnlyThePayload(schema, parse(`subscription { Posts { type key post { slug title __typename } } }`))).toBe(true);
    expect(readsOnlyThePayload(schema, parse(`subscription S { Post(slug: "a") { ...F } } fragment F on Post { slug status }`))).toBe(true);
  });

  it("refuses a relation, however deep or behind a fragment", () => {
    expect(readsOnlyThePayload(schema, parse(`subscription { Posts { post { slug author { uuid } } } }`))).toBe(false);
    expect(readsOnlyThePayload(schema, parse(`subscription { Post(slug: "a") { ...F } } fragment F on Post { comments { items { content } } }`))).toBe(false);
  });
});

describe("the text two delivered values share", () => {
  it("is their JSON for plain data, an absent property and an undefined one alike", () => {
    expect(plainValueKey({ a: 1, b: [true, null, "x"], c: { d: undefined } })).toBe(JSON.stringify({ a: 1, b: [true, null, "x"], c: {} }));
    expect(plainValueKey({ a: 1, b: undefined })).toBe(plainValueKey({ a: 1 }));
  });

  it("is none for values GraphQL may render otherwise than their JSON", () => {
    for (const odd of [
      { when: new Date(0) },
      { tags: new Set(["a"]) },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { big: 1n },
      [new Map()],
      new Date(0),
    ]) {
      expect(plainValueKey(odd)).toBeUndefined();
    }
  });
});

describe("a next frame around a payload serialised once", () => {
  it("is byte for byte what graphql-ws writes", () => {
    const payload = { data: { Posts: { type: "CREATED", post: { slug: 'é"\\</script>' } } }, errors: [{ message: "x" }] };
    for (const id of ["s", "1", 'ü "quoted" \\ back', "\u2028"]) {
      expect(nextFrame(id, JSON.stringify(payload))).toBe(stringifyMessage({ id, type: MessageType.Next, payload }));
    }
  });
});
