import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import layers from "./lint/layers.js";

export default tseslint.config(
  { ignores: [".scratch/", "node_modules/", ".serverless/", ".esbuild/", ".data/", "coverage/", "schema-cache/", "bench/out/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain JS files (serverless plugins) run on Node.
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: globals.node },
  },
  {
    // CommonJS shims the bundler substitutes for a Node module (lib/cli/bundle/).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // A model's instance type is declared by merging an interface derived from its JSON Schema.
      "@typescript-eslint/no-unsafe-declaration-merging": "off",
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
    },
  },
  {
    // The layer order (lint/layers.js, docs/layout.md): query < core < store, http < auth, graphql,
    // rest, realtime < local, cli < functions, app. Each refusal says where the code goes instead.
    files: ["lib/**/*.{ts,mjs,js}", "functions/**/*.{ts,mjs,js}", "app/**/*.{ts,mjs,js}"],
    plugins: { layers },
    rules: { "layers/order": "error" },
  },
  {
    // Every function's handler is made by invocationHandler (lib/core/invocation-handler.ts), which
    // opens and closes each invocation: a middy chain built elsewhere would open half of one.
    files: ["lib/**/*.ts", "functions/**/*.ts"],
    ignores: ["lib/core/invocation-handler.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@middy/core",
              allowTypeImports: true,
              message: "make the handler with invocationHandler (lib/core/invocation-handler.ts); pass middlewares in its kind's `use`.",
            },
          ],
        },
      ],
    },
  },
  {
    // An application sees the framework through its one public module (lib/index.ts), so lib/ can
    // move its files without breaking an application, and app/ reads as a newcomer's example. An
    // application's own tests beside it (app/**/*.test.ts) may build it from lib/'s parts.
    files: ["app/**/*.ts"],
    ignores: ["app/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/lib/**", "!**/lib/index.ts"],
              message: "app/ imports the framework from lib/index.ts only; export what you need from there.",
            },
          ],
        },
      ],
    },
  },
);
