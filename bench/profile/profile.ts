import { execFile } from "node:child_process";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { formatHotspots, hotspots } from "./summarise.ts";

const run = promisify(execFile);

/** The main thread's profile: tsx's loader thread writes one too, mostly idle and smaller. */
async function newestProfile(dir: string): Promise<string> {
  const files = await Promise.all(
    (await readdir(dir)).filter((f) => f.endsWith(".cpuprofile")).map(async (f) => ({ f, size: (await stat(join(dir, f))).size })),
  );
  const largest = files.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error(`no profile written in ${dir}`);
  return join(dir, largest.f);
}

/** The V8 CPU profile of one warm scenario (ours), after warm-up, summarised. */
export async function profileWarm(index: number, outDir: string, ms = 3000): Promise<string[]> {
  const dir = join(outDir, "profiles", `warm-${index}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const child = fileURLToPath(new URL("./warm-child.ts", import.meta.url));
  const file = join(dir, "warm.cpuprofile");
  await run(process.execPath, ["--import", "tsx", child, String(index), String(ms), file], { env: process.env, maxBuffer: 16 * 1024 * 1024 });
  return formatHotspots(hotspots(file));
}

/** `node --cpu-prof` over one cold start (a fresh process importing the bundle), summarised. */
export async function profileCold(bundle: string, event: string, env: Record<string, string>, outDir: string, name: string): Promise<string[]> {
  const { coldStart } = await import("../cold/spawn.ts");
  const dir = join(outDir, "profiles", `cold-${name.replace(/\W+/g, "-")}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await coldStart(bundle, event, env, { nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "100"] });
  return formatHotspots(hotspots(await newestProfile(dir)));
}
