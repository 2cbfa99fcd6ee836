import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { validatorsModule, type ValidatorsCompile } from "../../lib/cli/validators.ts";
import type { Application } from "../../lib/core/application.ts";
import type { Validator } from "../../lib/core/validation.ts";

/**
 * An application's standalone validators, as `npm run build` writes them to schema-cache/validators.mjs,
 * rendered and imported here: a test of the fixture (test/fixtures/blog) must not take the project's
 * schema-cache/, which is rendered from whatever application the project has. Written outside the
 * project, so ajv's helpers are imported by absolute path.
 */
export async function renderedValidators(app: Application, compile?: ValidatorsCompile): Promise<Record<string, Validator>> {
  const require = createRequire(import.meta.url);
  const code = validatorsModule(app, compile).replace(
    /from "(ajv\/[^"]+)"/g,
    (_, path: string) => `from ${JSON.stringify(pathToFileURL(require.resolve(path)).href)}`,
  );
  const dir = await mkdtemp(join(tmpdir(), "rendered-validators-"));
  try {
    await writeFile(join(dir, "validators.mjs"), code);
    return ((await import(pathToFileURL(join(dir, "validators.mjs")).href)) as { validators: Record<string, Validator> }).validators;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
