import { describe, expect, it } from "vitest";
import { BadQueryError } from "../../lib/core/errors.ts";
import { checkQuery, parseFilter, parseQuery, planDynamoQuery } from "../../lib/core/query-language.ts";
import { QueryError } from "../../lib/query/index.ts";

/** The error `run` throws (fails the test when it returns). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
}

// lib/query raises its own QueryError; the domain answers every refusal of the language as
// BAD_QUERY (400) with the language's message and `errors` unchanged.
describe("the query language's refusals, as the domain raises them", () => {
  it.each([
    ["a syntax error", () => parseQuery("a = - 1"), "unexpected character '-' at column 5"],
    ["a filter with a clause", () => parseFilter("a = 1 ORDER BY a"), "expected AND, OR or the end of the filter at column 7, found 'ORDER'"],
    ["an unknown field", () => checkQuery(parseQuery("b = 1"), { type: "object", properties: { a: { type: "string" } } }), "unknown field 'b' at column 1"],
    [
      "an order no index serves",
      () => planDynamoQuery({ orderBy: [{ field: "a", direction: "ASC" }] }, { key: { hash: "id" }, indexes: [] }),
      "cannot ORDER BY 'a': no index serves this order; declare one on the model",
    ],
  ])("%s is a BadQueryError", (_name, run, message) => {
    const error = thrown(run);
    expect(error).toBeInstanceOf(BadQueryError);
    expect(error).not.toBeInstanceOf(QueryError);
    expect(error).toMatchObject({ status: 400, code: "BAD_QUERY", message, errors: [{ path: "/q", message }] });
  });

  it("lets anything else through unchanged", () => {
    expect(() => parseQuery(undefined as unknown as string)).toThrow(TypeError);
  });
});
