// One cold start: a fresh node process imports a bundle and serves one event, then reports its
// timings on stdout. performance.now() counts from the process's time origin, so `total` includes
// Node's own start-up, as Lambda's init duration does.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [bundle, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, "utf8"));
// The invocation's time left: API Gateway's 29 s, unless the bench says otherwise (under callgrind a
// loaded machine can take longer than that in wall time, and a timer's length costs no instructions).
const remaining = Number(process.env.BENCH_REMAINING_MS) || 29_000;
const context = { awsRequestId: "cold-start", functionName: "bench", getRemainingTimeInMillis: () => remaining };

const started = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const imported = performance.now();
const response = await handler(event, context);
const answered = performance.now();

// A function that is no HTTP handler (stream, migrate) answers a plain value: status 0, and that
// value as the body.
const http = typeof response?.statusCode === "number";
const body = http ? String(response.body ?? "") : JSON.stringify(response ?? null);
process.stdout.write(
  `${JSON.stringify({ boot: started, import: imported - started, request: answered - imported, total: answered, status: http ? response.statusCode : 0, body: body.slice(0, 200) })}\n`,
);
// A function traced the earlier way (a baseline checkout: subsegments to the X-Ray daemon) sends
// after answering (in Lambda, the runtime's own I/O after the response lets them out): give them
// that moment, outside the timing. OpenTelemetry's export is awaited inside the handler, timed.
if (process.env.TRACING === "true") await new Promise((resolve) => setTimeout(resolve, 50));
process.exit(0);
