/**
 * Structured logs: one JSON object per line in Lambda (CloudWatch parses it), a readable line in
 * `serverless offline` and local tools.
 */
type Level = "debug" | "info" | "warn" | "error";
type Fields = Record<string, unknown>;

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Read once: process.env lookups are slow enough to show in a warm request's profile.
let settings: { threshold: number; readable: boolean } | undefined;

function configured(): { threshold: number; readable: boolean } {
  if (!settings) {
    const level = (process.env.LOG_LEVEL ?? "info").toLowerCase() as Level;
    settings = {
      threshold: ORDER[level] ?? ORDER.info,
      readable: process.env.IS_OFFLINE === "true" || process.env.LOG_FORMAT === "pretty",
    };
  }
  return settings;
}

/**
 * The current invocation's ids (request id, trace id), put on every line it writes. One invocation
 * at a time per Lambda instance: module state, set when it starts and cleared when it ends.
 */
let correlation: Fields | undefined;

export function setLogCorrelation(requestId?: string, traceId?: string): void {
  if (traceId === undefined) correlation = requestId === undefined ? undefined : { requestId };
  else correlation = requestId === undefined ? { traceId } : { requestId, traceId };
}

function withCorrelation(given: Fields, ids: Fields): Fields {
  const fields = { ...given };
  for (const key in ids) if (!(key in fields)) fields[key] = ids[key];
  return fields;
}

/**
 * Writes the line when its level passes; `members` (JSON members as text, without braces) joins a
 * JSON line at its end. True when the line was written as JSON with them, so that a caller whose
 * members must reach stdout (the metrics a request's line carries) writes them itself otherwise.
 */
function write(level: Level, message: string, given: Fields, members?: string): boolean {
  const { threshold, readable } = configured();
  if (ORDER[level] < threshold) return false;
  // The line's own fields first and winning: a line about another request keeps that request's
  // id, and a readable line reads as it always did, its ids at the end.
  const fields = correlation ? withCorrelation(given, correlation) : given;
  const stream = level === "error" || level === "warn" ? process.stderr : process.stdout;
  if (readable) {
    const extras = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(" ");
    stream.write(`${level.toUpperCase().padEnd(5)} ${message}${extras ? ` ${extras}` : ""}\n`);
    return false;
  }
  stream.write(`${jsonLine(level, message, fields, members)}\n`);
  return members !== undefined;
}

// Every request logs a line: the timestamp's text is made once per millisecond, not per line.
let stampedAt = Number.NaN;
let stamp = "";

function now(): string {
  const at = Date.now();
  if (at !== stampedAt) {
    stampedAt = at;
    stamp = new Date(at).toISOString();
  }
  return stamp;
}

/**
 * `{level, time, message, ...fields}` as JSON, written as the fields' own JSON behind the line's
 * three members rather than through a merged copy. Fields that would replace those members in
 * place, or that serialise themselves, take the merged copy. `members` (JSON text) end the line.
 */
function jsonLine(level: Level, message: string, fields: Fields, members?: string): string {
  const tail = members === undefined ? "}" : `,${members}}`;
  if (Object.hasOwn(fields, "level") || Object.hasOwn(fields, "time") || Object.hasOwn(fields, "message") || typeof fields.toJSON === "function") {
    return `${JSON.stringify({ level, time: now(), message, ...fields }).slice(0, -1)}${tail}`;
  }
  const rest = JSON.stringify(fields);
  return `{"level":"${level}","time":"${now()}","message":${JSON.stringify(message)}${rest === "{}" ? "" : `,${rest.slice(1, -1)}`}${tail}`;
}

/** Whether a line of `level` would be written: a caller can skip building what only it would carry. */
export function logs(level: Level): boolean {
  return ORDER[level] >= configured().threshold;
}

export const log = {
  debug: (message: string, fields: Fields = {}): void => void write("debug", message, fields),
  /** `members`: see write(); only the request log line passes them (its metrics). */
  info: (message: string, fields: Fields = {}, members?: string): boolean => write("info", message, fields, members),
  warn: (message: string, fields: Fields = {}): void => void write("warn", message, fields),
  error: (message: string, fields: Fields = {}): void => void write("error", message, fields),
};

export function errorFields(error: unknown): Fields {
  return error instanceof Error ? { error: error.message, errorName: error.name, stack: error.stack } : { error: String(error) };
}
