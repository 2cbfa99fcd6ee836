// Warm requests in one process: imports a bundle, serves `warmup` requests untimed, then `count`
// requests each timed, and writes their median (ms) to `resultFile`. The result goes to a file, not
// stdout: every request writes its metrics line there, as in Lambda.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [bundle, eventFile, resultFile, warmupText, countText] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, "utf8"));
const context = { awsRequestId: "warm", functionName: "bench", getRemainingTimeInMillis: () => 29_000 };
const { handler } = await import(pathToFileURL(bundle).href);

let status;
for (let i = 0; i < Number(warmupText); i++) status = (await handler(event, context))?.statusCode;
const times = [];
// Under callgrind (bench/tracing/instructions.ts), its count is split at these two calls.
process.cpuUsage();
for (let i = 0; i < Number(countText); i++) {
  const started = performance.now();
  await handler(event, context);
  times.push(performance.now() - started);
}
process.cpuUsage();
times.sort((a, b) => a - b);
writeFileSync(resultFile, JSON.stringify({ status, median: times[Math.floor(times.length / 2)] }));
// The X-Ray daemon's protocol (a baseline checkout) sends after answering: give its last datagram a moment.
if (process.env.TRACING === "true") await new Promise((resolve) => setTimeout(resolve, 50));
process.exit(0);
