import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The layer order is checked by `npm run lint` (lint/layers.js through eslint.config.js): these
// lint snippets as if they were files of the project, with the project's own configuration.
const root = fileURLToPath(new URL("..", import.meta.url));
const eslint = new ESLint({ cwd: root });

async function layerMessages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === "layers/order").map((m) => m.message);
}

describe("the layer order, as npm run lint checks it", () => {
  it("refuses lib/store from lib/core, and says where the code goes instead", async () => {
    const messages = await layerMessages("lib/core/example.ts", 'import type { PageFill } from "../store/repository.ts";\nexport type Fill = PageFill;\n');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("lib/core may not import lib/store/repository.ts: lib/store is above it in the layer order");
    expect(messages[0]).toContain("declare the contract in lib/core");
  });

  it.each([
    ["lib/query/example.ts", 'export { BadQueryError } from "../core/errors.ts";\n', "lib/query may not import lib/core/errors.ts"],
    ["lib/http/example.ts", 'export { AuthError } from "../auth/errors.ts";\n', "lib/http may not import lib/auth/errors.ts"],
    [
      "lib/auth/example.ts",
      'export { GRAPHQL_HTTP_ROUTES } from "../graphql/http-routes.ts";\n',
      "lib/auth may not import lib/graphql/http-routes.ts: lib/graphql is beside it",
    ],
    ["lib/rest/example.ts", 'export { AuthError } from "../auth/errors.ts";\n', "lib/rest may not import lib/auth/errors.ts: lib/auth is beside it"],
    ["lib/auth/idp/example.ts", 'export const load = () => import("../../cli/cache.ts");\n', "lib/auth may not import lib/cli/cache.ts: lib/cli is above it"],
  ])("refuses %s importing upward or sideways", async (path, code, expected) => {
    expect(await layerMessages(path, code)).toEqual([expect.stringContaining(expected)]);
  });

  it.each([
    ["lib/core/example.ts", 'export { parseQuery } from "../query/index.ts";\n'],
    ["lib/store/example.ts", 'export type { Repository } from "../core/repository.ts";\n'],
    ["lib/rest/example.ts", 'export { generateSigningJwk } from "../auth/index.ts";\n'],
    ["lib/realtime/example.ts", 'export { graphqlContext } from "../graphql/context.ts";\n'],
    ["functions/example.ts", 'export { app } from "../app/index.ts";\n'],
  ])("lets %s import below itself, or what its row allows beside it", async (path, code) => {
    expect(await layerMessages(path, code)).toEqual([]);
  });
});
