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

/** The header's trace when it is sampled and well formed; undefined otherwise (nothing to send). */
export function sampledTraceOf(header: string): SampledTrace | undefined {
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
  if (!sampled || root === undefined || parent === undefined || !ROOT.test(root) || !SEGMENT_ID.test(parent)) return undefined;
  return { root, parent };
}

/** Parsed once per distinct header value: an invocation's calls share it. */
let last: { header: string; trace: SampledTrace | undefined } = { header: "", trace: undefined };

/** The current invocation's sampled trace, or undefined (no header, unsampled, malformed). */
export function sampledTrace(): SampledTrace | undefined {
  const header = process.env._X_AMZN_TRACE_ID;
  if (!header) return undefined;
  if (header !== last.header) last = { header, trace: sampledTraceOf(header) };
  return last.trace;
}
