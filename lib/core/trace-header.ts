/**
 * The invocation's X-Ray tracing header (`_X_AMZN_TRACE_ID`, set by Lambda per invocation:
 * `Root=1-...;Parent=...;Sampled=1`), read for the subsegments of the AWS SDK's calls
 * (lib/store/aws-tracing.ts). Only a sampled header with a root and a parent is worth a
 * subsegment: X-Ray drops an unsampled trace's documents, and an independent subsegment needs
 * the segment it belongs under.
 */
export interface SampledTrace {
  /** The trace id (`1-5759e988-bd862e3fe1be46a994272793`). */
  root: string;
  /** The id of the segment the subsegments go under (Lambda's function segment). */
  parent: string;
}

const ROOT = /^1-[0-9a-f]{8}-[0-9a-f]{24}$/;
const SEGMENT_ID = /^[0-9a-f]{16}$/;

/** The header's parts: a well-formed root, and the trace to send subsegments for when sampled. */
function parse(header: string): { root: string | undefined; trace: SampledTrace | undefined } {
  let root: string | undefined;
  let parent: string | undefined;
  let sampled = false;
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals < 0) continue;
    const key = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    if (key === "Root") root = value;
    else if (key === "Parent") parent = value;
    else if (key === "Sampled") sampled = value === "1";
  }
  const wellFormed = root !== undefined && ROOT.test(root) ? root : undefined;
  const trace = sampled && wellFormed !== undefined && parent !== undefined && SEGMENT_ID.test(parent) ? { root: wellFormed, parent } : undefined;
  return { root: wellFormed, trace };
}

/** The header's trace when it is sampled and well formed; undefined otherwise (nothing to send). */
export function sampledTraceOf(header: string): SampledTrace | undefined {
  return parse(header).trace;
}

/** Parsed once per distinct header value: an invocation's calls and its log lines share it. */
let last: { header: string; root: string | undefined; trace: SampledTrace | undefined } = { header: "", root: undefined, trace: undefined };

function current(): typeof last | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  if (!header) return undefined;
  if (header !== last.header) last = { header, ...parse(header) };
  return last;
}

/** The current invocation's sampled trace, or undefined (no header, unsampled, malformed). */
export function sampledTrace(): SampledTrace | undefined {
  return current()?.trace;
}

/** The current invocation's trace id (its root), sampled or not, for its log and metric lines. */
export function traceRoot(): string | undefined {
  return current()?.root;
}
