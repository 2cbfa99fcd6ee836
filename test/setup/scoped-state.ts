import { afterAll, vi } from "vitest";
import { invocationsOpen } from "../../lib/core/invocation.ts";
import { changes, take } from "./process-state.ts";

/**
 * The unit project's files share their worker's process one after another (`isolate: false`), in
 * a shuffled order: what one leaves changed, the next would see. This setup file runs before each
 * of them and, after its last hook, checks that it left the process as it found it: the
 * environment, the globals, the working directory, the exit code, the clock, the standard
 * streams, and no invocation still open (one left open makes the next file's invocations open in
 * async contexts beside it, and whatever then finds the leftover instead reads its deadline). A file that changed one fails, naming it and what it changed (never a value: the
 * environment holds secrets), and the process is put back for the files after it.
 */

// Taken as this setup file runs, before the test file is imported: what its top level does counts.
const before = take();
const openBefore = invocationsOpen();

// vitest reads a hook's first parameter as a fixture pattern: an empty one asks for none.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  const file = suite.file.name;
  const leftFake = vi.isFakeTimers();
  const found = changes(before);
  // Put back for the next file: vitest's own (spies, stubs, fake timers) first, then the rest.
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  found.restore();
  const opened = invocationsOpen() - openBefore;
  const left = [
    ...(leftFake ? ["fake timers on"] : []),
    ...(opened !== 0 ? [`${opened} invocation(s) left open (a handler still running, or openInvocation without closeInvocation)`] : []),
    ...found.changed,
  ];
  if (left.length > 0)
    throw new Error(
      `${file} left process-wide state changed for the files after it in its worker (vitest.config.ts, the unit project): ${left.join("; ")}. Put it back in an afterAll or afterEach, or give the application or the invocation what it needs instead.`,
    );
});
