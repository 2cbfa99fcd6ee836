// The writers warm, in a process of their own: each invocation begun, one DynamoDB call tallied and
// the request's metrics published, as the functions do at the end of every request. The lines are
// built, not written (as in the warm section): stdout's write is a no-op while they run.
//   count WRITER WARMUP COUNT: `WARMUP` invocations, then `COUNT` more between two process.cpuUsage()
//     calls, where the parent has callgrind split its count (bench/instructions/callgrind.ts).
//   time ROUNDS PER_ROUND SEED: every writer `PER_ROUND` invocations per round, in an order shuffled
//     each round, after one unrecorded round; prints each writer's nanoseconds per invocation.
import { currentInvocation } from "../../lib/core/invocation.ts";
import { countDynamoDBCall } from "../../lib/core/metrics.ts";
import { seeded, shuffled } from "../lib/order.ts";
import * as none from "./none.ts";
import * as ours from "./ours.ts";
import * as powertools from "./powertools.ts";

const WRITERS = { none, ours, powertools } as const;
type Writer = (typeof WRITERS)[keyof typeof WRITERS];

function invocations(writer: Writer, count: number): void {
  for (let i = 0; i < count; i++) {
    const invocation = currentInvocation();
    writer.begin(invocation, "warm-request");
    countDynamoDBCall(0.5, 0, 1);
    writer.publish(invocation, 1.25);
  }
}

const [mode, ...args] = process.argv.slice(2);
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
if (mode === "count") {
  const [name, warmUp, count] = args as [keyof typeof WRITERS, string, string];
  const writer = WRITERS[name];
  if (writer === undefined) throw new Error(`no writer "${name}"`);
  invocations(writer, Number(warmUp));
  process.cpuUsage();
  invocations(writer, Number(count));
  process.cpuUsage();
  process.stdout.write = write;
  process.stdout.write("done\n");
} else {
  const [rounds, perRound, seed] = args.map(Number) as [number, number, number];
  const random = seeded(seed);
  const ns: Record<string, number[]> = { none: [], ours: [], powertools: [] };
  for (let round = -1; round < rounds; round++) {
    for (const name of shuffled(Object.keys(WRITERS) as (keyof typeof WRITERS)[], random)) {
      const started = process.hrtime.bigint();
      invocations(WRITERS[name], perRound);
      const elapsed = Number(process.hrtime.bigint() - started);
      if (round >= 0) ns[name]?.push(elapsed / perRound);
    }
  }
  process.stdout.write = write;
  process.stdout.write(`${JSON.stringify(ns)}\n`);
}
