import type { Invocation } from "../../lib/core/invocation.ts";

// The floor of the warm comparison: the invocation begun and tallied as with either writer,
// nothing published.

export function begin(invocation: Invocation, requestId: string): void {
  invocation.begin(requestId, undefined, Number.POSITIVE_INFINITY);
}

export function publish(_invocation: Invocation, _latencyMs: number): void {}
