// What `npm start` shows of serverless offline's output. Offline prints a box with every route, a
// list of every function name and the WebSocket routes at each start, and two lines per request
// (the route, then the duration); the handlers add a METRIC line. The handlers' own request line
// (`INFO  request ... method path status durationMs dynamodbCalls`) already says it all in one,
// and the METRIC figures stay in .data/metrics.jsonl for `npm run metrics`. Without this the
// banner and the live-reload results scroll away.
import { stripVTControlCharacters } from "node:util";

const REQUEST = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|ANY) \S+ \(λ: [^)]+\)$/;
const DURATION = /^\(λ: [^)]+\) RequestId: \S+\s+Duration: /;
const BOX = /^\s*[┌│└├─╭╰]/;
const FUNCTION_LIST = /^Function names exposed for local invocation/;
const FUNCTION_NAME = /^\s+\* [\w.-]+: \S+$/;
const WEBSOCKET_ROUTE = /^route '\S+ \(λ: [^)]+\)'$/;
const METRIC = /^METRIC /;

export interface OfflineOutputOptions {
  /** Show offline's route table and function list (`npm start -- --routes`). */
  routes: boolean;
}

/** A line filter for offline's output: true keeps the line. Stateful (the function list spans lines). */
export function offlineOutputFilter(options: OfflineOutputOptions): (line: string) => boolean {
  let inFunctionList = false;
  let blank = false;
  return (line) => {
    // Colour sequences, present when offline believes it writes to a terminal.
    const plain = stripVTControlCharacters(line);
    if (REQUEST.test(plain) || DURATION.test(plain) || METRIC.test(plain)) return false;
    // Offline pads its start with runs of blank lines: one is enough.
    const wasBlank = blank;
    blank = plain.trim() === "";
    if (blank && wasBlank) return false;
    if (options.routes) return true;
    if (FUNCTION_LIST.test(plain)) {
      inFunctionList = true;
      return false;
    }
    if (inFunctionList) {
      if (FUNCTION_NAME.test(plain) || plain.trim() === "") return false;
      inFunctionList = false;
    }
    return !BOX.test(plain) && !WEBSOCKET_ROUTE.test(plain);
  };
}
