import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Coding } from "../http/encoding.ts";
import { bootScript } from "./graphiql-page.ts";

/**
 * GraphiQL's own UMD builds from npm, read from node_modules: no CDN, so the page works offline.
 * serverless.yml packages exactly these files with the GraphiQL function (package.patterns), which
 * keeps them out of the GraphQL function's bundle.
 */
export const GRAPHIQL_FILES = {
  graphiql: { file: "graphiql/graphiql.min.js", ext: "js", type: "text/javascript" },
  css: { file: "graphiql/graphiql.min.css", ext: "css", type: "text/css" },
  react: { file: "react/umd/react.production.min.js", ext: "js", type: "text/javascript" },
  reactDom: { file: "react-dom/umd/react-dom.production.min.js", ext: "js", type: "text/javascript" },
} as const;

export type AssetId = keyof typeof GRAPHIQL_FILES | "boot";

export interface Asset {
  /** `<name>.<content hash>.<ext>`: a new version is a new URL, so it may be cached forever. */
  fileName: string;
  type: string;
  body: Buffer;
}

const NAMES: Record<AssetId, string> = { graphiql: "graphiql", css: "graphiql", react: "react", reactDom: "react-dom", boot: "app" };

/** The first `node_modules/<file>` found walking up from here (the project, or Lambda's task root). */
function locate(file: string): string {
  const starts = [dirname(fileURLToPath(import.meta.url)), process.env.LAMBDA_TASK_ROOT, process.cwd()].filter((d): d is string => Boolean(d));
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", file);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error(`GraphiQL asset node_modules/${file} is missing: install dependencies, or package it with the function`);
}

function load(id: AssetId, document: string): Asset {
  const source = id === "boot" ? { ext: "js", type: "text/javascript" } : GRAPHIQL_FILES[id];
  const body = id === "boot" ? Buffer.from(bootScript(document), "utf8") : readFileSync(locate(GRAPHIQL_FILES[id].file));
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12);
  return { fileName: `${NAMES[id]}.${hash}.${source.ext}`, type: source.type, body };
}

interface Assets {
  byId: Record<AssetId, Asset>;
  byFileName: Map<string, Asset>;
}

/** By the boot script's starting document: one per application, so once per cold start in a function. */
const loaded = new Map<string, Assets>();

/**
 * Every asset, read and hashed once per cold start (about 4 MB, a few tens of milliseconds); the
 * boot script opens GraphiQL on `document` (graphiql-page.ts, defaultDocument).
 */
export function graphiqlAssets(document: string): Assets {
  let assets = loaded.get(document);
  if (!assets) {
    const ids = [...(Object.keys(GRAPHIQL_FILES) as AssetId[]), "boot" as const];
    const byId = Object.fromEntries(ids.map((id) => [id, load(id, document)])) as Record<AssetId, Asset>;
    assets = { byId, byFileName: new Map(Object.values(byId).map((a) => [a.fileName, a])) };
    loaded.set(document, assets);
  }
  return assets;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const compressed = new Map<string, Promise<Buffer>>();

/**
 * The asset in a coding, compressed once per cold start and kept: brotli quality 5 compresses all
 * of GraphiQL in about a quarter of a second (quality 11 would take over 20 s) for 4 MB -> 1 MB;
 * the immutable cache headers then let a browser fetch each version once.
 */
export function encoded(asset: Asset, coding: Exclude<Coding, "identity">): Promise<Buffer> {
  const key = `${coding}:${asset.fileName}`;
  let pending = compressed.get(key);
  if (!pending) {
    pending =
      coding === "br"
        ? brotli(asset.body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 5,
              [constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            },
          })
        : gzipAsync(asset.body, { level: 6 });
    // A failed compression is not cached: the next request tries again.
    pending.catch(() => compressed.delete(key));
    compressed.set(key, pending);
  }
  return pending;
}
