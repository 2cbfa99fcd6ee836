import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { withDefaults } from "../../lib/core/config.ts";
import { Type } from "../../lib/core/schema.ts";
import { normalizeTypeName } from "../../lib/core/service.ts";

// Lambda functions fill service options with withDefaults (TypeBox's interpreter stays out of their
// bundles): for every service type, it must give exactly what TypeBox's Value.Default gives.
const configured = Object.values(definition.services);

describe("service option defaults", () => {
  for (const cls of definition.serviceTypes.filter((t) => t.options)) {
    const schema: TSchema = { ...(cls.options as TSchema), additionalProperties: false };
    const givens: Record<string, unknown>[] = [
      {},
      ...configured.filter((c) => normalizeTypeName(c.type) === normalizeTypeName(cls.type)).map(({ type: _type, ...given }) => given),
    ];
    it(`${cls.type}: the same options as TypeBox's Value.Default`, () => {
      for (const given of givens) {
        expect(withDefaults(schema, structuredClone(given))).toEqual(Value.Default(schema, structuredClone(given)));
      }
    });
  }

  it("fills nested objects, keeps given values, leaves optional options without a default absent", () => {
    const schema = Type.Object({
      a: Type.Object({ b: Type.Integer({ default: 3 }), c: Type.Optional(Type.String()) }, { default: {} }),
      d: Type.String({ default: "x" }),
      list: Type.Array(Type.Object({ e: Type.Boolean({ default: true }) })),
    });
    const given = { d: "given", list: [{}, { e: false }] };
    expect(withDefaults(schema, structuredClone(given))).toEqual(Value.Default(schema, structuredClone(given)));
    expect(withDefaults(schema, structuredClone(given))).toEqual({ a: { b: 3 }, d: "given", list: [{ e: true }, { e: false }] });
  });
});
