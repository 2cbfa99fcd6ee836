import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALICE } from "../support/blog.ts";
import { enableTestUser, graphqlBlog } from "./support.ts";
import { Model, type Decision } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { Application } from "../../lib/core/application.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { GraphQLService } from "../../lib/graphql/service.ts";
import { inProcess } from "../support/parts.ts";

let restore: () => void;
beforeAll(() => {
  restore = enableTestUser();
});
afterAll(() => restore());

/** A model with one field of each mapped type, open to everyone. */
class Sample extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String(),
    amount: Type.Optional(Type.Number()),
    when: Type.Optional(Type.String({ format: "date-time" })),
    meta: Type.Optional(Type.Object({}, { additionalProperties: true })),
    point: Type.Optional(Type.Object({ x: Type.Number(), labels: Type.Array(Type.String()) })),
    kind: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
  });
  override canAct(): Decision {
    return true;
  }

  @Operation({ input: Type.Object({ value: Type.Any() }), rest: { method: "GET" } })
  static echo({ value }: { value: unknown }): unknown {
    return { value };
  }
}

const app = new Application({ name: "s", version: "1", models: [Sample], serviceTypes: [GraphQLService], services: {} }, inProcess).useStore(memoryStore);
const g = graphqlBlog({}, app);
const create = (fields: string, variables?: Record<string, unknown>) =>
  g.post(
    `mutation${variables ? "($s: SampleInput!)" : ""} { createSample(Sample: ${variables ? "$s" : `{${fields}}`}) { uuid amount when meta point { x labels } kind } }`,
    { user: ALICE, ...(variables ? { variables } : {}) },
  );

describe("scalars", () => {
  it("maps the JSON Schema types of spec 2.1", async () => {
    const input = await g.data(`{ __type(name: "SampleInput") { inputFields { name type { name kind } } } }`);
    expect((input.__type as { inputFields: unknown[] }).inputFields).toEqual([
      { name: "amount", type: { name: "Long", kind: "SCALAR" } },
      { name: "when", type: { name: "Date", kind: "SCALAR" } },
      { name: "meta", type: { name: "Any", kind: "SCALAR" } },
      { name: "point", type: { name: "SamplePointInput", kind: "INPUT_OBJECT" } },
      { name: "kind", type: { name: "String", kind: "SCALAR" } },
    ]);
  });

  it("Long holds every number within ±2^52, decimals included, as literal and variable", async () => {
    for (const amount of [2 ** 52, -(2 ** 52), 0, 1.5, -0.25]) {
      const literal = await create(`amount: ${amount}`);
      expect(literal.body.data?.createSample).toMatchObject({ amount });
      const variable = await create("", { s: { amount } });
      expect(variable.body.data?.createSample).toMatchObject({ amount });
    }
  });

  it("Long refuses what it cannot hold exactly, with BAD_USER_INPUT", async () => {
    for (const amount of ["4503599627370498", "1e300", '"12"', "true"]) {
      const literal = await create(`amount: ${amount}`);
      expect(literal.body.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
      expect(literal.body.errors?.[0]?.message).toMatch(/Long cannot represent/);
    }
    for (const amount of [2 ** 52 + 2, "12", Number.MAX_SAFE_INTEGER]) {
      const variable = await create("", { s: { amount } });
      expect(variable.body.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
      expect(variable.body.data).toBeUndefined();
    }
  });

  it("Date reads and writes ISO 8601 strings", async () => {
    const ok = await create(`when: "2024-05-01T12:30:00.000Z"`);
    expect(ok.body.data?.createSample).toMatchObject({ when: "2024-05-01T12:30:00.000Z" });
    for (const when of ['"yesterday"', '"2024-13-45T99:00:00Z"', "12"]) {
      const bad = await create(`when: ${when}`);
      expect(bad.body.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
    }
  });

  it("Any accepts an inline object literal and a variable", async () => {
    const literal = await create(`meta: {a: 1, nested: {list: [true, "x", null]}}`);
    expect(literal.body.data?.createSample).toMatchObject({ meta: { a: 1, nested: { list: [true, "x", null] } } });
    const variable = await create("", { s: { meta: { b: [1, 2] }, point: { x: 1, labels: ["l"] }, kind: "a" } });
    expect(variable.body.data?.createSample).toMatchObject({ meta: { b: [1, 2] }, point: { x: 1, labels: ["l"] }, kind: "a" });
    const withVariable = await g.post(`query($v: Any) { echoSample(value: {inner: $v}) }`, { variables: { v: { deep: 1 } } });
    expect(withVariable.body.data).toEqual({ echoSample: { value: { inner: { deep: 1 } } } });
  });
});
