/** Under the project: where npm start writes a rebuild request and the plugin its answer. */
export const RELOAD_DIR: string;
export const REQUEST_FILE: string;
export const DONE_FILE: string;
/** `{ "held": boolean }`: whether npm start is checking a save (no rebuild meanwhile). */
export const HOLD_FILE: string;
/** Every live-reload line, from npm start and from the plugin. */
export const RELOAD_LOG: string;

/** An esbuild context as serverless-esbuild keeps one per function entry. */
interface EsbuildContext {
  rebuild(): Promise<unknown>;
}

export default class LiveReloadBundles {
  constructor(serverless: unknown);
  /** Bundles to rebuild in the background (or at once for a request), with their contexts. */
  stale: Map<string, EsbuildContext>;
  /** Bundles whose last rebuild failed or read a save being checked: rebuilt with the next checked version. */
  pending: Map<string, EsbuildContext>;
  /** A save is being checked, or the last one failed its check: nothing is rebuilt. */
  held: boolean;
  /** entry -> a context made from its recorded build (serverless-esbuild kept none of it) */
  made: Map<string, EsbuildContext & { dispose?: () => Promise<void> }>;
  /** serverless-esbuild's instance, checked (lib/local/serverless-esbuild-instance.mjs). */
  esbuild(): { buildCache?: Record<string, { context?: unknown }> };
  /** Rebuilds the function's bundle first if stale (unless held); resolves with how many rebuilds of it succeeded. */
  freshen(functionName: string): Promise<number>;
  /** Reads `dir`'s hold file. */
  readHold(dir: string): void;
  /** Answers `dir`'s rebuild request. */
  answer(dir: string): Promise<void>;
}
