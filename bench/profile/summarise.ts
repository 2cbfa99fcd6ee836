import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

export interface Hotspot {
  name: string;
  share: number;
}

function where(url: string): string {
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) return url.slice(modules + "node_modules/".length);
  const root = url.indexOf("/work/main/");
  return root >= 0 ? url.slice(root + "/work/main/".length) : url.replace(/^file:\/\//, "");
}

const maps = new Map<string, SourceMap | undefined>();

/** A minified bundle's frames named by their original file, through the bundle's source map. */
function original(url: string, line: number, column: number): string | undefined {
  if (!url.startsWith("file://") || !url.endsWith(".mjs")) return undefined;
  if (!maps.has(url)) {
    const path = `${fileURLToPath(url)}.map`;
    maps.set(url, existsSync(path) ? new SourceMap(JSON.parse(readFileSync(path, "utf8")) as ConstructorParameters<typeof SourceMap>[0]) : undefined);
  }
  const entry = maps.get(url)?.findEntry(line, column) as { originalSource?: string } | undefined;
  return entry?.originalSource?.replace(/^(\.\.\/)+/, "");
}

/** `graphql`, `@aws-sdk/client-dynamodb`, or the project's own file as it is. */
function packageOf(place: string): string {
  const path = place.startsWith("node_modules/") ? place.slice("node_modules/".length) : place;
  if (path === place && !/^[@a-z]/.test(path)) return place;
  if (place.startsWith("lib/") || place.startsWith("app/") || place.startsWith("bench/") || place.startsWith("functions/") || place.startsWith("node:"))
    return place;
  const parts = path.split("/");
  return (path.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/** Self time by function (and by package or file) from a `node --cpu-prof` profile, largest first. */
export function hotspots(file: string, top = 12): { functions: Hotspot[]; places: Hotspot[] } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const total = profile.nodes.reduce((sum, n) => sum + (n.hitCount ?? 0), 0) || 1;
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const place = original(url, lineNumber, columnNumber) ?? (url ? where(url) : "(native)");
    const name = `${functionName || "(anonymous)"} ${url ? `${place}:${lineNumber + 1}` : ""}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + hits);
    places.set(packageOf(place), (places.get(packageOf(place)) ?? 0) + hits);
  }
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => ({ name, share: hits / total }));
  return { functions: ranked(functions), places: ranked(places) };
}

export function formatHotspots(h: { functions: Hotspot[]; places: Hotspot[] }): string[] {
  const pct = (s: number) => `${(s * 100).toFixed(1).padStart(5)}%`;
  return [
    "self time by function:",
    ...h.functions.map((f) => `  ${pct(f.share)}  ${f.name}`),
    "self time by package or file:",
    ...h.places.map((p) => `  ${pct(p.share)}  ${p.name}`),
  ];
}
