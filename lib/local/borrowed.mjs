// @ts-check
// The internals of other packages the local tooling relies on, by name: the table in
// lib/local/README.md ("Borrowed internals") says, for each, the package and pinned version, what
// is used, why, and what breaks without it. Each is checked against the installed package by
// test/local/borrowed.test.ts (a test per name), and by the plugins as `serverless offline` starts
// under `npm start`: a check that fails stops the start with this error, which names the entry,
// rather than letting the feature turn itself off. Plain JS (checked by tsc through its JSDoc
// types) because the Serverless CLI loads the plugins that use it.

/** The entries of the table, by the name each check and test reports. */
export const BORROWED = /** @type {const} */ ({
  handlerRunner: "serverless-offline HandlerRunner",
  offlineHapi: "serverless-offline's hapi ext/route",
  streamsSend: "serverless-offline-dynamodb-streams DynamoDBStreamsClient.prototype.send",
  esbuildInstance: "serverless-esbuild plugin instance",
  esbuildBuildCache: "serverless-esbuild buildCache",
});

/** @typedef {typeof BORROWED[keyof typeof BORROWED]} BorrowedName */

export class BorrowedInternalBroken extends Error {
  /**
   * @param {BorrowedName} name
   * @param {string} detail what was found instead
   */
  constructor(name, detail) {
    super(
      `${name}: not as lib/local relies on it (${detail}). An upgrade moved it: see "Borrowed internals" in lib/local/README.md ` +
        "for what it is used for, and `npm run check:upstream` for the versions that still have it.",
    );
    this.name = "BorrowedInternalBroken";
    this.borrowed = name;
  }
}

/**
 * Throws BorrowedInternalBroken naming `name` unless `holds`.
 * @param {BorrowedName} name
 * @param {boolean} holds
 * @param {string} detail
 * @returns {asserts holds}
 */
export function expectBorrowed(name, holds, detail) {
  if (!holds) throw new BorrowedInternalBroken(name, detail);
}

/**
 * Runs `reach` (which finds the borrowed thing in the installed package); any error it throws
 * (a file gone, a module that no longer loads) becomes BorrowedInternalBroken naming `name`.
 * @template T
 * @param {BorrowedName} name
 * @param {() => Promise<T>} reach
 * @returns {Promise<T>}
 */
export async function reachBorrowed(name, reach) {
  try {
    return await reach();
  } catch (error) {
    if (error instanceof BorrowedInternalBroken) throw error;
    throw new BorrowedInternalBroken(name, error instanceof Error ? error.message : String(error));
  }
}

/**
 * `reachBorrowed` for a synchronous `reach`.
 * @template T
 * @param {BorrowedName} name
 * @param {() => T} reach
 * @returns {T}
 */
export function reachBorrowedSync(name, reach) {
  try {
    return reach();
  } catch (error) {
    if (error instanceof BorrowedInternalBroken) throw error;
    throw new BorrowedInternalBroken(name, error instanceof Error ? error.message : String(error));
  }
}

/**
 * @param {unknown} value
 * @param {string} method
 */
export function hasMethod(value, method) {
  return typeof value === "object" && value !== null && typeof (/** @type {Record<string, unknown>} */ (value)[method]) === "function";
}
