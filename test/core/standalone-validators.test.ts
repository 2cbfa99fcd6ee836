import { describe, expect, it } from "vitest";
import { app } from "../fixtures/blog/index.ts";
import { validatedSchemas } from "../../lib/cli/validators.ts";
import { createAjv } from "../../lib/core/validation-compiler.ts";
import { schemaKey, type Validator } from "../../lib/core/validation.ts";
import type { JsonSchema } from "../../lib/core/schema.ts";
import { renderedValidators } from "../support/rendered-validators.ts";

// The module `npm run build` writes (schema-cache/validators.mjs), rendered for the fixture.
const validators = await renderedValidators(app);

/** Inputs that break a schema in every way it can be broken: wrong types, extras, missing, bounds. */
function inputsFor(schema: JsonSchema): unknown[] {
  const properties = Object.keys(schema.properties ?? {});
  const each = (value: unknown) => Object.fromEntries(properties.map((p) => [p, value]));
  return [
    {},
    null,
    [],
    "text",
    42,
    each(1),
    each("x"),
    each(""),
    each("x".repeat(20_000)),
    each(true),
    each(null),
    each([]),
    each({}),
    each(-1),
    each(1.5),
    { ...each("x"), unknown: 1, "a/b~c": 2 },
  ];
}

const strip = (errors: Validator["errors"]) =>
  (errors ?? []).map(({ instancePath, schemaPath, keyword, params, message }) => ({ instancePath, schemaPath, keyword, params, message }));

describe("validators compiled at build time (ajv standalone, as schema-cache/validators.mjs)", () => {
  const schemas = validatedSchemas(app);

  it("cover every schema the domain validates: model input and patch, every operation's parameters", () => {
    expect(schemas.length).toBeGreaterThan(app.models().length * 2 - 1);
    for (const schema of schemas) expect(validators[schemaKey(schema)], schemaKey(schema).slice(0, 120)).toBeTypeOf("function");
  });

  it("give the same verdicts and the same errors (keyword, pointer, message, params) as ajv compiling at run time", () => {
    const ajv = createAjv();
    let compared = 0;
    for (const schema of schemas) {
      const runtime = ajv.compile(schema);
      const standalone = validators[schemaKey(schema)] as Validator;
      for (const input of inputsFor(schema)) {
        const expected = runtime(input);
        expect(standalone(input), JSON.stringify(input).slice(0, 80)).toBe(expected);
        expect(strip(standalone.errors)).toEqual(strip(runtime.errors));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe("validators compiled lazily (each validator's code run when it is first asked for)", () => {
  it("give the same verdicts and errors as the eager module, and the same validator on every read", async () => {
    const lazy = await renderedValidators(app, "lazy");
    expect(Object.keys(lazy).sort()).toEqual(Object.keys(validators).sort());
    let compared = 0;
    for (const schema of validatedSchemas(app)) {
      const key = schemaKey(schema);
      const eager = validators[key] as Validator;
      const validate = lazy[key] as Validator;
      expect(lazy[key]).toBe(validate);
      for (const input of inputsFor(schema)) {
        expect(validate(input)).toBe(eager(input));
        expect(strip(validate.errors)).toEqual(strip(eager.errors));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
