// One process under callgrind: a warm scenario's request served `warmUp` times, then `count` more
// between two process.cpuUsage() calls, where the parent has callgrind split its count: start-up,
// module loading and warm-up fall outside that stretch, a steady-state request's instructions in it.
import { productionEnv } from "../warm/production-env.ts";
import { warmScenarios } from "../warm/scenarios.ts";

const [measure, variant, warmUpArg, countArg] = process.argv.slice(2);
productionEnv();
const scenario = (await warmScenarios()).find((s) => s.measure === measure);
const task = variant === "metrics off" ? scenario?.withoutMetrics : scenario?.ours;
if (!task) throw new Error(`no warm task "${variant}" in scenario "${measure}"`);
// The log lines are built, not written (as in the warm section).
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
await task.check();
task.before?.();
for (let i = 0; i < Number(warmUpArg); i++) await task.run();
// The parent runs callgrind with --dump-before=uv_getrusage: these two calls bound the counted part.
process.cpuUsage();
for (let i = 0; i < Number(countArg); i++) await task.run();
process.cpuUsage();
task.after?.();
process.stdout.write = write;
process.stdout.write("done\n");
