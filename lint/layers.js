// The layer order of the framework, written once and checked by `npm run lint` (docs/layout.md).
// A folder imports from the rows below its own; beside it (its own row) only what `beside` names.
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Bottom first. `to` says where code goes instead when this folder reaches for something it may
 * not: it ends each refusal's message.
 */
export const LAYERS = [
  [
    {
      folder: "lib/query",
      to: "lib/query is the bottom layer: it raises its own QueryError, which lib/core translates; keep what the language needs inside lib/query",
    },
  ],
  [
    {
      folder: "lib/core",
      to: "lib/core owns the ports its users implement: declare the contract in lib/core (as lib/core/repository.ts and lib/core/identity.ts do) and implement it in the folder above",
    },
  ],
  [
    { folder: "lib/store", to: "a store implements lib/core's ports with lib/query; what it needs from elsewhere belongs in lib/core" },
    {
      folder: "lib/http",
      to: "the HTTP adapter asks who is calling through lib/core's identity port (lib/core/identity.ts); code it shares with a face belongs in lib/http or lib/core",
    },
  ],
  [
    {
      folder: "lib/auth",
      to: "the faces reach authentication (through lib/core's identity port), never the reverse: move what both need down to lib/core or lib/http",
    },
    {
      folder: "lib/graphql",
      to: "a face imports lib/query, lib/core, lib/store, lib/http and lib/auth/index.ts; move what two faces share down to lib/core or lib/http",
      beside: ["lib/auth/index.ts"],
    },
    // The REST catch-all answers 405 on the GraphQL paths, so it knows their route list.
    {
      folder: "lib/rest",
      to: "a face imports lib/query, lib/core, lib/store, lib/http and lib/auth/index.ts; move what two faces share down to lib/core or lib/http",
      beside: ["lib/auth/index.ts", "lib/graphql/http-routes.ts"],
    },
    // Subscriptions are GraphQL operations: the WebSocket face plans and executes them with lib/graphql.
    {
      folder: "lib/realtime",
      to: "the WebSocket face imports lib/query, lib/core, lib/store, lib/http, lib/graphql and lib/auth/index.ts; move what it shares with the local tools down to lib/core or lib/http",
      beside: ["lib/auth/index.ts", "lib/graphql"],
    },
  ],
  [
    {
      folder: "lib/local",
      to: "lib/local (npm start, seeding, live reload) uses the framework and the build (lib/cli's schema-cache renderers); what a deployed function needs belongs below it, in lib/core, lib/http or a face",
      beside: ["lib/cli"],
    },
    {
      folder: "lib/cli",
      to: "the webda command uses the framework; what a deployed function needs belongs below it, in lib/core, lib/http or a face; what npm start shares with it, below both (lib/store/local-credentials.ts)",
    },
    {
      folder: "lib/index.ts",
      to: "lib/index.ts is the public module an application imports: it re-exports the framework and nothing imports it from inside lib/",
      beside: ["lib/local"],
    },
  ],
  [
    { folder: "functions", to: "functions/ are the Lambda entry points: nothing imports them; shared code belongs in lib/", beside: ["app"] },
    { folder: "app", to: "app/ imports the framework from lib/index.ts only" },
  ],
];

const ORDER = LAYERS.map((row) =>
  row
    .filter((l) => l.folder !== "lib/index.ts")
    .map((l) => l.folder.replace(/^lib\//, ""))
    .join(", "),
).join(" < ");
const ROWS = new Map(LAYERS.flatMap((row, i) => row.map((layer) => [layer.folder, { ...layer, row: i }])));

/** The layer a project path belongs to (`lib/core`, `lib/index.ts`, `functions`, ...), or undefined outside the order. */
function layerOf(path) {
  const parts = path.split(sep);
  if (parts[0] === "lib") return parts.length > 2 ? `lib/${parts[1]}` : path === `lib${sep}index.ts` ? "lib/index.ts" : undefined;
  return ROWS.has(parts[0]) ? parts[0] : undefined;
}

const within = (path, entry) => path === entry || path.startsWith(`${entry}/`);

function refusal(from, target, targetLayer) {
  const source = ROWS.get(from);
  const other = ROWS.get(targetLayer);
  if (!source || !other || from === targetLayer) return undefined;
  if (other.row < source.row) return undefined;
  if (other.row === source.row && (source.beside ?? []).some((entry) => within(target, entry))) return undefined;
  const where = other.row > source.row ? "above" : "beside";
  return `${from} may not import ${target}: ${targetLayer} is ${where} it in the layer order (${ORDER}; docs/layout.md). Instead: ${source.to}.`;
}

/** @type {import("eslint").Rule.RuleModule} */
const order = {
  meta: {
    type: "problem",
    docs: { description: "Imports follow the framework's layer order (lint/layers.js, docs/layout.md)" },
    schema: [],
  },
  create(context) {
    const file = relative(ROOT, context.filename);
    const from = layerOf(file);
    if (!from) return {};
    const check = (node) => {
      const specifier = node?.type === "Literal" ? node.value : undefined;
      if (typeof specifier !== "string" || !specifier.startsWith(".")) return;
      const target = relative(ROOT, resolve(dirname(context.filename), specifier));
      const message = refusal(from, target.split(sep).join("/"), layerOf(target));
      if (message) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default { rules: { order } };
