import { Bench } from "tinybench";
import type { Task } from "./tasks.ts";

/** One tinybench round over every task; ops/s by task. */
export async function round(tasks: Task[], timeMs: number): Promise<Map<Task, number>> {
  const bench = new Bench({ time: timeMs, warmupTime: Math.min(100, timeMs), throws: true });
  for (const task of tasks) bench.add(task.name, task.run, { ...(task.before ? { beforeAll: task.before } : {}), ...(task.after ? { afterAll: task.after } : {}) });
  await bench.run();
  const out = new Map<Task, number>();
  bench.tasks.forEach((t, i) => {
    const result = t.result;
    if (result.state !== "completed") throw new Error(`${t.name}: ${result.state}`);
    out.set(tasks[i] as Task, result.throughput.mean);
  });
  return out;
}
