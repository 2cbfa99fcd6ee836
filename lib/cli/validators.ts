import type { AnyValidateFunction } from "ajv/dist/types/index.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { Application } from "../core/application.ts";
import type { OperationDefinition } from "../core/operation.ts";
import type { JsonSchema } from "../core/schema.ts";
import { createAjv } from "../core/validation-compiler.ts";
import { schemaKey } from "../core/validation.ts";
import type { CacheRenderer } from "./cache.ts";

// ajv's standalone code: of the schemas `refs` names (exported under those names), or of one compiled validator.
type Standalone = (ajv: ReturnType<typeof createAjv>, refsOrValidator: Record<string, string> | AnyValidateFunction) => string;
const standaloneCode: Standalone = (standaloneModule as unknown as { default?: Standalone }).default ?? (standaloneModule as unknown as Standalone);

/** The parameter schema an operation is validated with (lib/core/invoke.ts builds the same). */
function parameterSchema(operation: OperationDefinition): JsonSchema {
  return (
    operation.input ? { ...operation.input, additionalProperties: false } : { type: "object", properties: {}, additionalProperties: false }
  ) as JsonSchema;
}

/** Every schema the domain validates input with: model input, patch and server-owned values, every operation's parameters. */
export function validatedSchemas(app: Application): JsonSchema[] {
  const schemas: JsonSchema[] = [];
  for (const info of app.models()) {
    schemas.push(info.inputSchema, info.patchSchema);
    if (info.ownedFields.size > 0) schemas.push(info.ownedSchema);
    for (const operation of info.operations) schemas.push(parameterSchema(operation));
  }
  for (const entry of app.services()) for (const operation of entry.operations) schemas.push(parameterSchema(operation));
  const unique = new Map(schemas.map((s) => [schemaKey(s), s]));
  return [...unique.values()].sort((a, b) => schemaKey(a).localeCompare(schemaKey(b)));
}

/**
 * When each validator's code runs: `eager`, the module's top level defines every validator (its
 * schema constants built, its code compiled by V8 as it is first called); `lazy`, each validator's
 * code is wrapped in a function the table calls when the validator is first asked for, so a cold
 * start that validates nothing (a read) runs none of it. bench/README.md, "Compile cache, source
 * maps, module format", gives the A/B that chose the default.
 */
export type ValidatorsCompile = "eager" | "lazy";
export const VALIDATORS_COMPILE: ValidatorsCompile = "eager";

/** ajv's `require("…")` of its run-time helpers as module imports, named `runtime0`, `runtime1`, … */
function importHelpers(code: string, imports: Map<string, string>): string {
  return code.replace(/require\("([^"]+)"\)/g, (_, path: string) => {
    const name = imports.get(path) ?? `runtime${imports.size}`;
    imports.set(path, name);
    return name;
  });
}

/** Every validator as a top-level definition, exported as `v0`, `v1`, … */
function eagerCode(ajv: ReturnType<typeof createAjv>, count: number, imports: Map<string, string>): { code: string; entry: (i: number) => string } {
  const refs: Record<string, string> = {};
  for (let i = 0; i < count; i++) refs[`v${i}`] = `v${i}`;
  const code = importHelpers(standaloneCode(ajv, refs), imports).replace(/^"use strict";/, "");
  return { code, entry: (i) => `v${i}` };
}

/**
 * Every validator's code inside a function `make0`, `make1`, … that returns it, and a getter per
 * table entry that calls it once.
 */
function lazyCode(ajv: ReturnType<typeof createAjv>, count: number, imports: Map<string, string>): { code: string; entry: (i: number) => string } {
  const factories: string[] = [];
  for (let i = 0; i < count; i++) {
    const validate = ajv.getSchema(`v${i}`);
    if (!validate) throw new Error(`no schema v${i}`);
    // One validator's standalone module: `export const validate = X; export default X;` then its code.
    const single = importHelpers(standaloneCode(ajv, validate), imports);
    const name = /export default (\w+);/.exec(single)?.[1];
    if (!name) throw new Error(`ajv's standalone code for v${i} names no validator`);
    const body = single
      .replace(/^"use strict";/, "")
      .replace(/export const validate = \w+;/, "")
      .replace(/export default \w+;/, "");
    factories.push(`let made${i};\nfunction make${i}() {${body}\nreturn ${name};}`);
  }
  return { code: factories.join("\n"), entry: (i) => `(made${i} ??= make${i}())` };
}

/**
 * ajv's standalone code for every validated schema, as an ES module keyed by schema text: the
 * functions install it, so none compiles a schema at run time and ajv's compiler stays out of
 * their bundles. ajv's small run-time helpers (string length, deep equality, format checks) are
 * imported, not inlined.
 */
export function validatorsModule(app: Application, compile: ValidatorsCompile = VALIDATORS_COMPILE): string {
  const ajv = createAjv({ code: { source: true, esm: true, lines: false } });
  const schemas = validatedSchemas(app);
  schemas.forEach((schema, i) => ajv.addSchema({ ...schema, $id: `v${i}` }));
  const imports = new Map<string, string>();
  const { code, entry } = compile === "lazy" ? lazyCode(ajv, schemas.length, imports) : eagerCode(ajv, schemas.length, imports);
  // A CommonJS helper arrives differently under Node, esbuild and vite: as module.exports (Node,
  // esbuild in node mode) or with `exports.default` already unwrapped (vite); __cjs gives it back
  // as module.exports, which the generated code reads.
  const head = [...imports].map(
    ([path, name]) => `import * as ${name}ns from "${path.endsWith(".js") ? path : `${path}.js`}";\nconst ${name} = __cjs(${name}ns);`,
  );
  if (head.length > 0) head.unshift('const __cjs = (ns) => { const d = ns.default; return typeof d === "function" ? { default: d } : d ?? ns; };');
  const table = schemas.map((schema, i) =>
    compile === "lazy" ? `  get ${JSON.stringify(schemaKey(schema))}() { return ${entry(i)}; },` : `  ${JSON.stringify(schemaKey(schema))}: ${entry(i)},`,
  );
  return [
    "// Generated by `npm run build` from the models' schemas (ajv standalone code): do not edit.",
    ...head,
    code,
    "",
    compile === "lazy"
      ? "/** Validators by schema text (lib/core/validation.ts's schemaKey), each built when first read. */"
      : "/** Validators by schema text (lib/core/validation.ts's schemaKey). */",
    "export const validators = {",
    ...table,
    "};",
    "",
  ].join("\n");
}

export const validatorsCache: CacheRenderer = (app) => ({
  "validators.mjs": validatorsModule(app),
  "validators.d.mts": [
    "// Generated by `npm run build`: the type of validators.mjs.",
    'import type { Validator } from "../lib/core/validation.ts";',
    "export declare const validators: Readonly<Record<string, Validator>>;",
    "",
  ].join("\n"),
});
