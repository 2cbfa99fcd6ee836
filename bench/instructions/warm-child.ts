// One process under callgrind: a warm scenario's request served `warmUp` times, then `count` more.
// The parent runs it with two counts and divides the difference by the extra requests: start-up,
// module loading and warm-up cancel out, what is left is a steady-state request's instructions.
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
