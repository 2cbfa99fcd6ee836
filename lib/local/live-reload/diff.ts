import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { CacheFiles } from "../../cli/cache.ts";

/** One good version of the application, as the rebuild child rendered it. */
export interface Version {
  files: CacheFiles;
  tables: CreateTableCommandInput[];
}

export interface VersionChange {
  /** What a user reads: "+ routes /bookmarks", "+ table <project>-local-Bookmark", ... */
  lines: string[];
  /** schema-cache/ files whose content differs. */
  files: string[];
  /** serverless offline reads serverless.yml once: a file it includes changed, so it must start again. */
  restart: boolean;
}

/** The schema-cache/ files serverless.yml includes with `${file(./schema-cache/<name>)}`. */
export function includedCacheFiles(serverlessYml: string): Set<string> {
  return new Set([...serverlessYml.matchAll(/\$\{file\(\.\/schema-cache\/([^)]+)\)\}/g)].map((m) => m[1] as string));
}

function routeKeys(files: CacheFiles): Set<string> {
  const text = files["routes.json"];
  if (text === undefined) return new Set();
  return new Set((JSON.parse(text) as { key: string }[]).map((r) => r.key));
}

/** Route keys ("GET /posts") added or removed, by path: "/bookmarks" when all of a path is new, else "GET /posts/x". */
function routeLines(sign: "+" | "-", keys: string[], other: Set<string>): string[] {
  if (keys.length === 0) return [];
  const otherPaths = new Set([...other].map((k) => k.slice(k.indexOf(" ") + 1)));
  const shown = new Set<string>();
  for (const key of keys) {
    const path = key.slice(key.indexOf(" ") + 1);
    shown.add(otherPaths.has(path) ? key : path);
  }
  return [`${sign} routes ${[...shown].join(", ")}`];
}

function indexNames(table: CreateTableCommandInput): string[] {
  return (table.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName ?? "");
}

function tableLines(before: CreateTableCommandInput[], after: CreateTableCommandInput[]): string[] {
  const old = new Map(before.map((t) => [t.TableName, t]));
  const now = new Set(after.map((t) => t.TableName));
  const lines: string[] = [];
  for (const table of after) {
    const previous = old.get(table.TableName);
    if (previous === undefined) {
      lines.push(`+ table ${table.TableName}`);
      continue;
    }
    const had = new Set(indexNames(previous));
    for (const index of indexNames(table)) if (!had.has(index)) lines.push(`+ index ${table.TableName}.${index}`);
  }
  // Never dropped: the data of a model removed by mistake survives until the user stops npm start.
  for (const name of old.keys()) if (!now.has(name)) lines.push(`- table ${name} (no longer used; its data stays in DynamoDB Local)`);
  return lines;
}

/** What changed from the served version to the new one, and what it takes to serve it. */
export function diffVersions(before: Version, after: Version, included: Set<string>): VersionChange {
  const names = new Set([...Object.keys(before.files), ...Object.keys(after.files)]);
  const files = [...names].filter((n) => before.files[n] !== after.files[n]).sort();
  const oldRoutes = routeKeys(before.files);
  const newRoutes = routeKeys(after.files);
  const lines = [
    ...routeLines(
      "+",
      [...newRoutes].filter((k) => !oldRoutes.has(k)),
      oldRoutes,
    ),
    ...routeLines(
      "-",
      [...oldRoutes].filter((k) => !newRoutes.has(k)),
      newRoutes,
    ),
    ...tableLines(before.tables, after.tables),
  ];
  if (files.length > 0) lines.push(`~ schema-cache/ ${files.join(", ")}`);
  return { lines, files, restart: files.some((f) => included.has(f)) };
}
