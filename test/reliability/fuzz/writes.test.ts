import { describe, expect, it } from "vitest";
import { explainedBy, graphqlWrites, restWrite } from "./writes.ts";

describe("the fuzzer's record of accepted writes", () => {
  it("does not count a 2xx query (PUT /posts) or a read as a write", () => {
    expect(restWrite("PUT", "/posts", 200, '{"results":[{"slug":"listed"}]}')).toBeUndefined();
    expect(restWrite("GET", "/posts/a", 200, '{"slug":"a"}')).toBeUndefined();
    expect(restWrite("PATCH", "/posts/a", 400, '{"code":400}')).toBeUndefined();
  });

  it("keys a write by its path and the record it answered with", () => {
    expect(restWrite("POST", "/posts", 200, '{"slug":"new","title":"t"}')?.key).toEqual(["new"]);
    expect(restWrite("PATCH", "/posts/a%20b", 200, '{"slug":"a b"}')?.key).toEqual(["a b"]);
    expect(graphqlWrites(200, '{"data":{"createPost":{"slug":"g"}}}').map((w) => w.key)).toEqual([["g"]]);
    expect(graphqlWrites(200, '{"data":{"Posts":{"results":[{"slug":"g"}]}}}')).toEqual([]);
  });

  it("explains a changed record only by one write naming its whole key, not by a key seen in some answer", () => {
    const writes = [restWrite("POST", "/posts", 200, '{"slug":"x","title":"mentions y"}'), restWrite("PATCH", "/posts/z", 200, '{"slug":"z"}')].flatMap((w) =>
      w ? [w] : [],
    );
    expect(explainedBy(["x"], writes)?.method).toBe("POST");
    expect(explainedBy(["y"], writes)).toBeUndefined();
    expect(explainedBy(["x", "z"], writes)).toBeUndefined();
  });
});
