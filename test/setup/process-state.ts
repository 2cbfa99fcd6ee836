/**
 * What of the process a test file can leave changed for the files after it in its worker: the
 * environment, the globals, the working directory, the exit code and the standard streams
 * (test/setup/scoped-state.ts compares them before and after each file).
 */

/** Globals the runner itself sets while a file runs. */
const RUNNERS_OWN = /^(__vitest|__vite|__VITEST|__coverage|__\$|jest|chai|expect$)/;
/**
 * Globals a library adds once, the first time a file imports it, and keeps for the process: the
 * AWS SDK's invoke store (awslambda), effect's registry. A new symbol is such a registry too
 * (undici's dispatcher, graceful-fs's queue), and so is a new name starting `__` (tslib's helpers,
 * which TypeScript's compiler puts on globalThis). A global replaced or removed is always a change.
 */
const LIBRARIES_OWN = new Set<PropertyKey>(["awslambda", "effect/GlobalValue"]);

export interface Taken {
  env: Map<string, string | undefined>;
  globals: Map<PropertyKey, unknown>;
  cwd: string;
  exitCode: typeof process.exitCode;
  writes: { stdout: typeof process.stdout.write; stderr: typeof process.stderr.write; emitWarning: typeof process.emitWarning };
}

export function take(): Taken {
  const globals = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(globalThis)) {
    if (typeof key === "string" && RUNNERS_OWN.test(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
    // An accessor is compared by its getter: reading it may have effects of its own.
    globals.set(key, descriptor && "value" in descriptor ? descriptor.value : descriptor?.get);
  }
  return {
    env: new Map(Object.entries(process.env)),
    globals,
    cwd: process.cwd(),
    exitCode: process.exitCode,
    writes: { stdout: process.stdout.write, stderr: process.stderr.write, emitWarning: process.emitWarning },
  };
}

/** What differs between `before` and now, each as a short phrase; `restore` puts each back. */
export function changes(before: Taken, now: Taken = take()): { changed: string[]; restore: () => void } {
  const changed: string[] = [];
  const fixes: (() => void)[] = [];
  const envNames = new Set([...before.env.keys(), ...now.env.keys()]);
  const envChanged = [...envNames].filter((name) => before.env.get(name) !== now.env.get(name)).sort();
  if (envChanged.length > 0) {
    changed.push(`process.env: ${envChanged.join(", ")}`);
    fixes.push(() => {
      for (const name of envChanged) {
        const value = before.env.get(name);
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
  }
  const globalNames = new Set([...before.globals.keys(), ...now.globals.keys()]);
  const added = (key: PropertyKey): boolean => !before.globals.has(key) && now.globals.has(key);
  const globalsChanged = [...globalNames].filter((key) =>
    added(key)
      ? typeof key === "string" && !LIBRARIES_OWN.has(key) && !key.startsWith("__")
      : !Object.is(before.globals.get(key), now.globals.get(key)) || before.globals.has(key) !== now.globals.has(key),
  );
  if (globalsChanged.length > 0) changed.push(`globalThis: ${globalsChanged.map(String).join(", ")}`);
  if (before.cwd !== now.cwd) {
    changed.push("the working directory");
    fixes.push(() => process.chdir(before.cwd));
  }
  if (before.exitCode !== now.exitCode) {
    changed.push("process.exitCode");
    fixes.push(() => (process.exitCode = before.exitCode));
  }
  for (const name of ["stdout", "stderr", "emitWarning"] as const) {
    if (before.writes[name] !== now.writes[name]) changed.push(name === "emitWarning" ? "process.emitWarning" : `process.${name}.write`);
  }
  return { changed, restore: () => fixes.forEach((fix) => fix()) };
}
