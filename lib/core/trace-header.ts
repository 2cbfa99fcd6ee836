/**
 * The invocation's X-Ray tracing header (`_X_AMZN_TRACE_ID`, set by Lambda per invocation:
 * `Root=1-...;Parent=...;Sampled=1`): its root names the trace on every log and metric line, and
 * its root and parent are the remote parent of the invocation's span (./tracing/xray-propagator.ts),
 * which records only when the header is sampled: X-Ray would drop an unsampled trace.
 */
export interface TraceParent {
  /** The trace id (`1-5759e988-bd862e3fe1be46a994272793`). */
  root: string;
  /** The id of the segment the invocation's span goes under (Lambda's function segment). */
  parent: string;
  sampled: boolean;
}

const ROOT = /^1-[0-9a-f]{8}-[0-9a-f]{24}$/;
const SEGMENT_ID = /^[0-9a-f]{16}$/;

/** The header's well-formed root and parent (each undefined otherwise), and whether it is sampled. */
function parse(header: string): { root: string | undefined; parent: string | undefined; sampled: boolean } {
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
  return {
    root: root !== undefined && ROOT.test(root) ? root : undefined,
    parent: parent !== undefined && SEGMENT_ID.test(parent) ? parent : undefined,
    sampled,
  };
}

/** A header's root and parent when both are well formed, and whether it is sampled; else undefined. */
export function traceParentOf(header: string): TraceParent | undefined {
  const { root, parent, sampled } = parse(header);
  return root === undefined || parent === undefined ? undefined : { root, parent, sampled };
}

/** Parsed once per distinct header value: an invocation's log lines share it. */
let last: { header: string; root: string | undefined } = { header: "", root: undefined };

/** The current invocation's trace id (its root), sampled or not, for its log and metric lines. */
export function traceRoot(): string | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  if (!header) return undefined;
  if (header !== last.header) last = { header, root: parse(header).root };
  return last.root;
}
