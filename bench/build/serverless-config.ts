import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface FunctionConfig {
  handler: string;
}

export interface ServerlessConfig {
  provider: { name: string; runtime: string };
  custom: { esbuild: Record<string, unknown> };
  functions: (Record<string, FunctionConfig> | string)[];
}

/** serverless.yml as serverless reads it, minus variable resolution: the esbuild block has no variables. */
export function serverlessConfig(root = ROOT): ServerlessConfig {
  return parse(readFileSync(join(root, "serverless.yml"), "utf8"), { merge: true }) as ServerlessConfig;
}

/**
 * Every function's handler file, as `serverless package` bundles them: the hand-written functions
 * and the `${file(...)}` list rendered from the routes, one bundle per distinct handler file.
 */
export function functionEntries(root = ROOT): Map<string, string[]> {
  const byFile = new Map<string, string[]>();
  for (const block of serverlessConfig(root).functions) {
    const functions = typeof block === "string" ? included(root, block) : block;
    for (const [name, fn] of Object.entries(functions)) {
      const file = `${fn.handler.slice(0, fn.handler.lastIndexOf("."))}.ts`;
      byFile.set(file, [...(byFile.get(file) ?? []), name]);
    }
  }
  return byFile;
}

function included(root: string, reference: string): Record<string, FunctionConfig> {
  const path = /^\$\{file\(\.\/(.+)\)\}$/.exec(reference)?.[1];
  if (!path) throw new Error(`serverless.yml: cannot read the functions block '${reference}'`);
  return JSON.parse(readFileSync(join(root, path), "utf8")) as Record<string, FunctionConfig>;
}
