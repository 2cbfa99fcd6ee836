// @ts-check
// Every patch of another package's internals that `serverless offline` needs to answer as AWS does,
// in one place: what each patches is named here, and test/local/offline-patches.test.ts loads the
// installed packages and checks that each still finds what it patches, so an upgrade that moves
// them fails a test instead of silently changing what offline answers. The plugins that use them
// (offline-cors.mjs, offline-http-parity.mjs, offline-streams.mjs) hold only the rules.
// A deployed stage never loads this file. Plain JS (checked by tsc through its JSDoc types) because
// the Serverless CLI loads plugins itself.
import diagnosticsChannel from "node:diagnostics_channel";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BORROWED, expectBorrowed, hasMethod, reachBorrowed, reachBorrowedSync } from "./borrowed.mjs";
import { streamPace } from "./stream-pace.mjs";

/**
 * The part of a Hapi server (as serverless-offline creates it) the CORS patch relies on.
 * @typedef {object} HapiServer
 * @property {{ port?: unknown }} settings
 * @property {(event: string, method: unknown, options?: unknown) => unknown} ext
 * @property {(definitions: HapiRoute | HapiRoute[]) => unknown} route
 */
/** @typedef {{ options?: Record<string, unknown>, [key: string]: unknown }} HapiRoute */
/**
 * The part of a Hapi request the CORS steps read and change.
 * @typedef {object} HapiRequest
 * @property {string} method
 * @property {Record<string, string | undefined>} headers
 * @property {{ isBoom: true, output: { headers: Record<string, unknown> } } | { isBoom?: false, headers: Record<string, unknown> }} response
 */
/**
 * @typedef {object} HapiResponse
 * @property {(status: number) => HapiResponse} code
 * @property {(name: string, value: string) => HapiResponse} header
 * @property {() => HapiResponse} takeover
 */
/** @typedef {{ continue: symbol, response: (value?: unknown) => HapiResponse }} HapiToolkit */
/** @typedef {(request: HapiRequest, h: HapiToolkit) => unknown} HapiLifecycleMethod */

/** The package whose Hapi and HTTP server the first two patches reach. */
export const OFFLINE_PACKAGE = "serverless-offline";
/** The package whose DynamoDB Streams client the third patch reaches. */
export const STREAMS_PACKAGE = "serverless-offline-dynamodb-streams";

/**
 * `require` as seen from an installed package, so that a patch reaches the copy of a dependency
 * that package loads, not another one.
 * @param {string} name
 */
function requireFrom(name) {
  return createRequire(createRequire(import.meta.url).resolve(name));
}

/**
 * The prototype every Hapi server of serverless-offline inherits from.
 * @returns {HapiServer}
 */
export function offlineHapiPrototype() {
  return reachBorrowedSync(BORROWED.offlineHapi, () => {
    /** @type {{ server: (options: object) => HapiServer }} */
    const Hapi = requireFrom(OFFLINE_PACKAGE)("@hapi/hapi");
    /** @type {HapiServer} */
    const proto = Object.getPrototypeOf(Hapi.server({ autoListen: false }));
    expectBorrowed(BORROWED.offlineHapi, hasMethod(proto, "ext") && hasMethod(proto, "route"), "its Server has no ext and route methods");
    return proto;
  });
}

const CORS_PATCHED = Symbol.for("modelrest.offlineCors");

/**
 * @typedef {object} CorsReplacement
 * @property {number} port the HTTP server's port: the WebSocket and Lambda servers are left alone
 * @property {HapiLifecycleMethod} onRequest added before the routes (a preflight API Gateway answers itself)
 * @property {HapiLifecycleMethod} onPreResponse replaces serverless-offline's own CORS hook
 * @property {() => void} replaced called when offline's hook was replaced
 */

/** @type {CorsReplacement | undefined} */
let corsReplacement;

/**
 * serverless-offline answers CORS in an `onPreResponse` hook it registers on its HTTP server, and
 * Hapi adds route-level CORS after it. On the server listening on `replacement.port` only, every
 * `onPreResponse` hook registered with `server.ext` becomes `replacement.onPreResponse` (with
 * `replacement.onRequest` in front), and every route is registered with CORS off. The latest
 * replacement applies (one `serverless offline` per process).
 * @param {CorsReplacement} replacement
 */
export function replaceOfflineCors(replacement) {
  corsReplacement = replacement;
  const proto = offlineHapiPrototype();
  const patched = /** @type {HapiServer & { [CORS_PATCHED]?: true }} */ (proto);
  if (patched[CORS_PATCHED]) return;
  patched[CORS_PATCHED] = true;
  const { ext, route } = proto;
  /** @returns {CorsReplacement | undefined} */
  const forServer = (/** @type {HapiServer} */ server) =>
    corsReplacement !== undefined && Number(server.settings?.port) === corsReplacement.port ? corsReplacement : undefined;
  proto.ext = function (event, method, extOptions) {
    const active = forServer(this);
    if (active && event === "onPreResponse" && typeof method === "function") {
      active.replaced();
      ext.call(this, "onRequest", active.onRequest);
      // Before the CORS step: API Gateway's error answer gets its CORS headers like any other.
      ext.call(this, "onPreResponse", answerFunctionErrorsAsGateway);
      return ext.call(this, event, active.onPreResponse, extOptions);
    }
    return ext.call(this, event, method, extOptions);
  };
  proto.route = function (definitions) {
    if (!forServer(this)) return route.call(this, definitions);
    const off = (/** @type {HapiRoute} */ d) => ({ ...d, options: { ...d.options, cors: false } });
    return route.call(this, Array.isArray(definitions) ? definitions.map(off) : off(definitions));
  };
}

/** What API Gateway's HTTP API answers for a request whose function failed (threw, timed out, did not load). */
export const GATEWAY_FUNCTION_ERROR = { status: 500, body: JSON.stringify({ message: "Internal Server Error" }) };

/**
 * serverless-offline answers an HTTP API (payload 2.0) request whose function failed (it threw,
 * its bundle did not load, it ran past its timeout) with HTTP 200 and the body
 * `{"errorMessage", "errorType", "stackTrace"}`: the error's message and stack to any client.
 * API Gateway answers 500 `{"message":"Internal Server Error"}`; so does this step, on the HTTP
 * server only (offline itself prints the error where `npm start` shows it).
 * @param {HapiRequest & { response: { statusCode?: number, source?: unknown } }} request
 * @param {HapiToolkit} h
 */
export function answerFunctionErrorsAsGateway(request, h) {
  const response = request.response;
  if (response.isBoom || response.statusCode !== 200 || typeof response.source !== "string" || !response.source.startsWith('{"errorMessage"')) {
    return h.continue;
  }
  /** @type {unknown} */
  let body;
  try {
    body = JSON.parse(response.source);
  } catch {
    return h.continue;
  }
  const keys = typeof body === "object" && body !== null ? Object.keys(body).sort().join(",") : "";
  if (keys !== "errorMessage,errorType,stackTrace") return h.continue;
  // Not taken over: the next onPreResponse step (CORS) still runs on it, as API Gateway adds CORS to an error.
  return h.response(GATEWAY_FUNCTION_ERROR.body).code(GATEWAY_FUNCTION_ERROR.status).header("content-type", "application/json");
}

/** The channel Node publishes every HTTP server's request on, before the server's `request` event. */
export const REQUEST_START_CHANNEL = "http.server.request.start";

/** @param {import("node:http").IncomingHttpHeaders} headers */
function hasBody(headers) {
  const length = headers["content-length"];
  return (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined;
}

/** @param {unknown} message what Node publishes on REQUEST_START_CHANNEL: `{ request, response, socket, server }` */
function nameMissingContentType(message) {
  const request = /** @type {{ request?: import("node:http").IncomingMessage }} */ (message)?.request;
  if (request?.headers && request.headers["content-type"] === undefined && hasBody(request.headers)) {
    request.headers["content-type"] = "application/octet-stream";
    request.rawHeaders.push("content-type", "application/octet-stream");
  }
}

/**
 * serverless-offline gives a request with a body and no Content-Type `application/json` when it
 * builds the Lambda event (LambdaProxyIntegrationEventV2, from `rawHeaders`); API Gateway passes
 * the headers as sent. Node publishes every request an HTTP server receives on the public
 * diagnostics channel `http.server.request.start` just before the server's `request` event, so
 * before Hapi sees it: such a body is named `application/octet-stream` there (opaque bytes Hapi
 * hands on untouched), in `headers` (read by Hapi) and `rawHeaders` (read by offline), and the
 * handler sees a media type it refuses, as in AWS. Called again, it still subscribes once.
 */
export function keepMissingContentTypes() {
  diagnosticsChannel.unsubscribe(REQUEST_START_CHANNEL, nameMissingContentType);
  diagnosticsChannel.subscribe(REQUEST_START_CHANNEL, nameMissingContentType);
}

/**
 * @typedef {object} StreamsClientModule
 * @property {{ prototype: { send: StreamsSend & { recoversTrimmed?: true } } }} DynamoDBStreamsClient
 * @property {new (input: { ShardIterator: string | undefined }) => { input: { ShardIterator?: string } }} GetRecordsCommand
 * @property {new (input: { StreamArn?: string, ShardId?: string, ShardIteratorType: string, SequenceNumber?: string }) => { input: { StreamArn?: string, ShardId?: string, ShardIteratorType?: string } }} GetShardIteratorCommand
 */
/**
 * @typedef {{ ShardIterator?: string, NextShardIterator?: string, Records?: { dynamodb?: { SequenceNumber?: string } }[] }} StreamsOutput
 * @typedef {(this: unknown, command: object, ...rest: unknown[]) => Promise<StreamsOutput>} StreamsSend
 */

/** The AWS SDK's DynamoDB Streams client as serverless-offline-dynamodb-streams loads it. */
export function offlineStreamsClient() {
  return reachBorrowedSync(BORROWED.streamsSend, () => {
    const module = /** @type {StreamsClientModule} */ (requireFrom(STREAMS_PACKAGE)("@aws-sdk/client-dynamodb-streams"));
    expectBorrowed(
      BORROWED.streamsSend,
      hasMethod(module.DynamoDBStreamsClient?.prototype, "send") &&
        typeof module.GetRecordsCommand === "function" &&
        typeof module.GetShardIteratorCommand === "function",
      "its @aws-sdk/client-dynamodb-streams has no DynamoDBStreamsClient.prototype.send, GetRecordsCommand or GetShardIteratorCommand",
    );
    return module;
  });
}

/**
 * DynamoDB Local numbers stream records globally across tables: once another table's stream gets
 * a record, the iterator an empty GetRecords returned for this table fails with
 * TrimmedDataAccessException, and serverless-offline-dynamodb-streams starts again at LATEST,
 * losing the record just written. Its client's `send` is made to recover instead: a fresh iterator
 * after the last record read from that shard (or after the shard's content at startup). The same
 * `send` paces the reads: while the streams are quiet, a read waits for the next handler run or
 * the idle wait (stream-pace.mjs says why).
 */
export function recoverTrimmedIterators() {
  const { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } = offlineStreamsClient();
  const send = DynamoDBStreamsClient.prototype.send;
  if (send.recoversTrimmed) return;
  /** @type {Map<string, string>} iterator -> "arn|shard" */
  const shardOf = new Map();
  /** @type {Map<string, string>} "arn|shard" -> sequence number */
  const lastRead = new Map();
  const at = (/** @type {string} */ where) => {
    const [StreamArn, ShardId] = where.split("|");
    const after = lastRead.get(where);
    return new GetShardIteratorCommand({
      StreamArn,
      ShardId,
      ...(after ? { ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: after } : { ShardIteratorType: "TRIM_HORIZON" }),
    });
  };
  const lastSequence = (/** @type {StreamsOutput} */ page) => page.Records?.at(-1)?.dynamodb?.SequenceNumber;
  /** @type {StreamsSend} */
  async function patched(command, ...rest) {
    if (command instanceof GetShardIteratorCommand) {
      const where = `${command.input.StreamArn}|${command.input.ShardId}`;
      if (command.input.ShardIteratorType === "LATEST" && !lastRead.has(where)) {
        // What LATEST skips: recovery must resume after it, not replay it.
        let iterator = (await send.call(this, at(where))).ShardIterator;
        while (iterator) {
          const page = await send.call(this, new GetRecordsCommand({ ShardIterator: iterator }));
          const last = lastSequence(page);
          if (last === undefined) break;
          lastRead.set(where, last);
          iterator = page.NextShardIterator;
        }
      }
      const out = await send.call(this, command, ...rest);
      if (out.ShardIterator) shardOf.set(out.ShardIterator, where);
      return out;
    }
    if (command instanceof GetRecordsCommand) {
      const iterator = command.input.ShardIterator;
      const where = iterator === undefined ? undefined : shardOf.get(iterator);
      if (iterator !== undefined) shardOf.delete(iterator);
      await streamPace.beforeRead();
      let out;
      try {
        out = await send.call(this, command, ...rest);
      } catch (error) {
        if (/** @type {{ name?: string }} */ (error)?.name !== "TrimmedDataAccessException" || !where) throw error;
        const fresh = await send.call(this, at(where));
        out = await send.call(this, new GetRecordsCommand({ ...command.input, ShardIterator: fresh.ShardIterator }), ...rest);
      }
      streamPace.read(out.Records?.length ?? 0);
      const last = lastSequence(out);
      if (where && last !== undefined) lastRead.set(where, last);
      if (where && out.NextShardIterator) shardOf.set(out.NextShardIterator, where);
      return out;
    }
    return send.call(this, command, ...rest);
  }
  DynamoDBStreamsClient.prototype.send = Object.assign(patched, { recoversTrimmed: /** @type {const} */ (true) });
}

/**
 * @typedef {(this: { cleanup: () => Promise<void> }, event: unknown, context: { functionName?: string }) => Promise<unknown>} RunHandler
 * @typedef {{ prototype: { run: RunHandler & { gated?: true } } }} HandlerRunnerClass
 */

/**
 * serverless-offline's HandlerRunner: every handler it runs (HTTP, WebSocket, stream, invoke) goes
 * through its `run`, whose first call loads the function's bundle. Reached by file: the package's
 * `exports` do not list it, and the same file URL is the same module offline itself loaded.
 * @returns {Promise<HandlerRunnerClass>}
 */
export async function offlineHandlerRunner() {
  return reachBorrowed(BORROWED.handlerRunner, async () => {
    const main = createRequire(import.meta.url).resolve(OFFLINE_PACKAGE);
    const file = join(dirname(main), "lambda", "handler-runner", "HandlerRunner.js");
    const HandlerRunner = /** @type {{ default: HandlerRunnerClass }} */ (await import(pathToFileURL(file).href)).default;
    expectBorrowed(
      BORROWED.handlerRunner,
      hasMethod(HandlerRunner?.prototype, "run") && hasMethod(HandlerRunner?.prototype, "cleanup"),
      "HandlerRunner.js exports no class with run and cleanup",
    );
    return HandlerRunner;
  });
}

/** @type {((functionName: string) => Promise<number>) | undefined} */
let handlerGate;
/** @type {Set<() => void>} called after every handler run, however it ended */
const afterRun = new Set();
/** @type {WeakMap<object, number>} a HandlerRunner -> the generation of the bundle its worker loaded */
const loadedGeneration = new WeakMap();

/** Wraps HandlerRunner's `run` once: the gate before it, the `afterRun` listeners after it. */
async function patchHandlerRunner() {
  const { prototype } = await offlineHandlerRunner();
  const run = prototype.run;
  if (run.gated) return;
  /** @type {RunHandler} */
  async function gated(event, context) {
    try {
      if (handlerGate !== undefined && typeof context?.functionName === "string") {
        const generation = await handlerGate(context.functionName);
        const loaded = loadedGeneration.get(this);
        if (loaded !== undefined && loaded !== generation) await this.cleanup();
        loadedGeneration.set(this, generation);
      }
      return await run.call(this, event, context);
    } finally {
      for (const listener of afterRun) listener();
    }
  }
  prototype.run = Object.assign(gated, { gated: /** @type {const} */ (true) });
}

/**
 * Has offline await `gate(functionName)` before it runs any handler, after the function is marked
 * busy (so two requests never share one instance meanwhile) and before its bundle is loaded: live
 * reload rebuilds a stale bundle there, on the first request that needs it. The gate answers the
 * bundle's generation; a runner whose worker loaded an older one is recycled first (its idle worker
 * ended, a fresh one loads the new bundle), so a request in flight is never cut off, as offline's
 * own `functionsUpdated` cleanup does to a busy worker. The latest gate applies.
 * @param {(functionName: string) => Promise<number>} gate
 */
export async function gateOfflineHandlers(gate) {
  handlerGate = gate;
  await patchHandlerRunner();
}

const wakeStreams = () => streamPace.wake();

/** Every handler offline runs, once it has ended, wakes the stream reads waiting on the pace. */
export async function wakeStreamsAfterHandlers() {
  afterRun.add(wakeStreams);
  await patchHandlerRunner();
}
