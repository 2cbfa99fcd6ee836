// Profiles one warm scenario's own handler: the V8 CPU profiler (what `node --cpu-prof` uses),
// started through the inspector after set-up and warm-up so that module loading is not counted.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { warmScenarios } from "../warm/scenarios.ts";
import { productionEnv } from "../warm/production-env.ts";

const [index = "0", ms = "3000", out = "warm.cpuprofile"] = process.argv.slice(2);
productionEnv();
const scenario = (await warmScenarios())[Number(index)];
if (!scenario) throw new Error(`no warm scenario ${index}`);
process.stdout.write = (() => true) as typeof process.stdout.write;
const loop = async (duration: number) => {
  const until = performance.now() + duration;
  while (performance.now() < until) await scenario.ours.run();
};
await loop(500);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
await loop(Number(ms));
const { profile } = await session.post("Profiler.stop");
writeFileSync(out, JSON.stringify(profile));
