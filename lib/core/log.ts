/**
 * Structured logs: one JSON object per line in Lambda (CloudWatch parses it), a readable line in
 * `serverless offline` and local tools.
 */
import { currentInvocation, type Invocation } from "./invocation.ts";

type Level = "debug" | "info" | "warn" | "error";
type Fields = Record<string, unknown>;

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** How lines are written: the level they must reach, and whether readable rather than JSON. */
export interface LogSettings {
  threshold: number;
  readable: boolean;
}

/** The settings `env` gives: LOG_LEVEL, and IS_OFFLINE or LOG_FORMAT=pretty for readable lines. */
export function logSettings(env: NodeJS.ProcessEnv = process.env): LogSettings {
  const level = (env.LOG_LEVEL ?? "info").toLowerCase() as Level;
  return {
    threshold: ORDER[level] ?? ORDER.info,
    readable: env.IS_OFFLINE === "true" || env.LOG_FORMAT === "pretty",
  };
}

/**
 * The current invocation's settings, read once per invocation (process.env lookups are slow
 * enough to show in a warm request's profile when made per line) and kept on it, not in this
 * module: a process whose environment changes (a test, a tool) logs as it says from the next
 * invocation on. Outside any invocation (start-up, a CLI command) they are read per line.
 */
function configured(invocation: Invocation = currentInvocation()): LogSettings {
  if (invocation.opened === undefined) return logSettings();
  invocation.logSettings ??= logSettings();
  return invocation.logSettings;
}

/** The line's own fields first and winning, then the current invocation's ids (request, trace). */
function withCorrelation(given: Fields, requestId: string | undefined, traceId: string | undefined): Fields {
  const fields = { ...given };
  if (requestId !== undefined && !("requestId" in fields)) fields.requestId = requestId;
  if (traceId !== undefined && !("traceId" in fields)) fields.traceId = traceId;
  return fields;
}

/**
 * Writes the line when its level passes; `members` (JSON members as text, without braces) end a
 * JSON line, and are left out of a readable one.
 */
function write(level: Level, message: string, given: Fields, members?: string): void {
  const invocation = currentInvocation();
  const { threshold, readable } = configured(invocation);
  if (ORDER[level] < threshold) return;
  // A line about another request keeps that request's id, and a readable line reads as it always
  // did, its ids at the end.
  const { requestId, traceId } = invocation;
  const fields = requestId === undefined && traceId === undefined ? given : withCorrelation(given, requestId, traceId);
  const stream = level === "error" || level === "warn" ? process.stderr : process.stdout;
  if (readable) {
    const extras = Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    stream.write(`${level.toUpperCase().padEnd(5)} ${message}${extras ? ` ${extras}` : ""}\n`);
    return;
  }
  stream.write(`${jsonLine(level, message, fields, members)}\n`);
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

/**
 * Whether a line of `level` would be written as JSON to stdout (Lambda's format): only such a line
 * can carry other JSON members (log.infoCarrying), as a request's line carries its metrics.
 */
export function logsJson(level: "debug" | "info"): boolean {
  const { threshold, readable } = configured();
  return !readable && ORDER[level] >= threshold;
}

export const log = {
  debug: (message: string, fields: Fields = {}): void => write("debug", message, fields),
  info: (message: string, fields: Fields = {}): void => write("info", message, fields),
  /**
   * An info line ending with `members` (JSON members as text, without braces): the caller checked
   * logsJson("info") first, since a readable line, or no line, would not carry them.
   */
  infoCarrying: (message: string, fields: Fields, members: string): void => write("info", message, fields, members),
  warn: (message: string, fields: Fields = {}): void => write("warn", message, fields),
  error: (message: string, fields: Fields = {}): void => write("error", message, fields),
};

export function errorFields(error: unknown): Fields {
  return error instanceof Error ? { error: error.message, errorName: error.name, stack: error.stack } : { error: String(error) };
}
