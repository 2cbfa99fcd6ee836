import { Ajv } from "ajv";
import { expect, it } from "vitest";
import { app } from "../fixtures/blog/index.ts";

/**
 * Run time compiles schemas without checking them against the meta-schema (cold start); this
 * check is where an invalid schema is caught instead.
 */
it("every schema the application compiles is valid JSON Schema", () => {
  const strict = new Ajv({ strict: false, validateSchema: true, allErrors: true });
  strict.addFormat("email", true).addFormat("uuid", true).addFormat("date-time", true);
  const schemas: [string, object][] = [];
  for (const info of app.models()) {
    schemas.push([`${info.name} input`, info.inputSchema], [`${info.name} patch`, info.patchSchema], [`${info.name} output`, info.outputSchema]);
    for (const op of info.operations) {
      if (op.input) schemas.push([`${info.name}.${op.name} input`, op.input]);
      if (op.output) schemas.push([`${info.name}.${op.name} output`, op.output]);
    }
  }
  for (const entry of app.services()) {
    const options = (entry.service.constructor as { options?: object }).options;
    if (options) schemas.push([`${entry.name} options`, options]);
    for (const op of entry.operations) if (op.input) schemas.push([`${entry.name}.${op.name} input`, op.input]);
  }
  expect(schemas.length).toBeGreaterThan(20);
  for (const [name, schema] of schemas) {
    expect(strict.validateSchema(schema), `${name}: ${strict.errorsText()}`).toBe(true);
  }
});
