import { Ajv, type Options } from "ajv";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { Validation, type Validator } from "./validation.ts";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const loaded = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = loaded.default ?? loaded;

/**
 * Every validator of the framework speaks the same JSON Schema dialect, formats included, whether
 * compiled at build time (standalone code in schema-cache/) or at run time (tests, the CLI).
 * Schemas are ours (built with TypeBox, checked against the meta-schema in the tests), so they
 * are not re-checked: compiling ajv's meta-schema would cost ~40 ms.
 */
export function createAjv(options: { useDefaults?: boolean; code?: Options["code"] } = {}): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: false,
    verbose: true,
    useDefaults: options.useDefaults ?? false,
    validateSchema: false,
    ...(options.code ? { code: options.code } : {}),
  });
  addFormats(instance);
  return instance;
}

/**
 * The validation of an application run in-process (tests, the CLI, `npm start`'s tools): the
 * precompiled validators where given, and schemas the build did not see (test models, the CLI's)
 * compiled when first used.
 */
export function runtimeValidation(precompiled: Readonly<Record<string, Validator>> = {}): Validation {
  let ajv: Ajv | undefined;
  return new Validation(precompiled, (schema) => (ajv ??= createAjv()).compile(schema));
}
