import { request as httpRequest, Server } from "node:http";
import diagnosticsChannel from "node:diagnostics_channel";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import {
  gateOfflineHandlers,
  GATEWAY_FUNCTION_ERROR,
  keepMissingContentTypes,
  OFFLINE_PACKAGE,
  offlineHandlerRunner,
  offlineHapiPrototype,
  offlineStreamsClient,
  recoverTrimmedIterators,
  REQUEST_START_CHANNEL,
  replaceOfflineCors,
  STREAMS_PACKAGE,
  wakeStreamsAfterHandlers,
} from "../../lib/local/offline-patches.mjs";
import { streamPace } from "../../lib/local/stream-pace.mjs";

/**
 * The patches of lib/local/offline-patches.mjs against the installed serverless-offline and
 * serverless-offline-dynamodb-streams: each test loads the package's own code and fails when an
 * upgrade moves what a patch relies on (a hook, a prototype method, the class a server is).
 */

const require = createRequire(import.meta.url);
/** A file of an installed package, by its path inside the package (their `exports` do not list these). */
const packageFile = (name: string, file: string) => join(dirname(require.resolve(name)), file);

interface HapiInjectResult {
  statusCode: number;
  headers: Record<string, unknown>;
}
interface OfflineHapiServer {
  settings: { port?: unknown };
  listener: unknown;
  route(definition: object): void;
  inject(options: object): Promise<HapiInjectResult>;
  start(): Promise<void>;
  stop(): Promise<void>;
  info: { port: number };
}
interface OfflineHttpServer {
  createServer(): Promise<void>;
  getServer(): OfflineHapiServer;
}
type HttpServerClass = new (serverless: object, options: object, lambda: object) => OfflineHttpServer;

async function offlineHttpServer(port: number): Promise<OfflineHapiServer> {
  const { default: HttpServer } = (await import(pathToFileURL(packageFile(OFFLINE_PACKAGE, "events/http/HttpServer.js")).href)) as { default: HttpServerClass };
  // What serverless-offline's HTTP server reads of the service when it answers (no httpApi.cors).
  const server = new HttpServer({ service: { provider: {} } }, { host: "127.0.0.1", httpPort: port, enforceSecureCookies: false }, {});
  await server.createServer();
  const hapi = server.getServer();
  hapi.route({ method: "GET", path: "/me", handler: () => ({ me: "alice" }), options: { cors: { origin: ["*"], credentials: true } } });
  return hapi;
}

/**
 * offline's HTTP server with one HTTP API (payload 2.0) route, `GET /fails`, whose function fails
 * as `fault` says. The function is a stand-in (fault injection): offline's own route and its
 * answer to the failure are what is tested.
 */
async function offlineHttpServerWithFailingFunction(port: number, fault: () => Promise<unknown>): Promise<OfflineHapiServer> {
  const { default: HttpServer } = (await import(pathToFileURL(packageFile(OFFLINE_PACKAGE, "events/http/HttpServer.js")).href)) as {
    default: new (
      serverless: object,
      options: object,
      lambda: object,
    ) => OfflineHttpServer & { createRoutes(key: string, event: object, handler: string): void };
  };
  const lambda = { get: () => ({ setEvent: () => undefined, setClientContext: () => undefined, runHandler: fault }) };
  const server = new HttpServer(
    { service: { provider: {} }, config: { servicePath: tmpdir() } },
    { host: "127.0.0.1", httpPort: port, enforceSecureCookies: false, noPrependStageInUrl: true, corsConfig: {} },
    lambda,
  );
  await server.createServer();
  server.createRoutes("fails", { isHttpApi: true, routeKey: "GET /fails", method: "GET", path: "/fails", payload: "2.0" }, "functions/fails.handler");
  return server.getServer();
}

const FOREIGN = "https://evil.example";
const corsHeaders = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("access-control-")));

describe("the CORS patch on serverless-offline's Hapi", () => {
  it("finds ext and route on the prototype of offline's Hapi servers", () => {
    const proto = offlineHapiPrototype() as unknown as Record<string, unknown>;
    expect(typeof proto.ext).toBe("function");
    expect(typeof proto.route).toBe("function");
  });

  it("replaces the onPreResponse hook offline's own HTTP server registers, on that server only", async () => {
    let replaced = 0;
    replaceOfflineCors({
      port: 3917,
      onRequest: (_request, h) => h.continue,
      onPreResponse: (request, h) => {
        if (!request.response.isBoom) request.response.headers["x-replaced"] = "yes";
        return h.continue;
      },
      replaced: () => {
        replaced++;
      },
    });
    const patched = await offlineHttpServer(3917);
    expect(replaced).toBe(1);
    expect(Number(patched.settings.port)).toBe(3917);
    const answer = await patched.inject({ method: "GET", url: "/me", headers: { origin: FOREIGN } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["x-replaced"]).toBe("yes");
    // Neither offline's hook nor the route's Hapi CORS answered the foreign Origin.
    expect(corsHeaders(answer.headers)).toEqual({});

    // Another port keeps offline's hook: what the patch replaces still reflects any Origin with credentials.
    const other = await offlineHttpServer(3918);
    expect(replaced).toBe(1);
    const reflected = await other.inject({ method: "GET", url: "/me", headers: { origin: FOREIGN } });
    expect(reflected.headers["x-replaced"]).toBeUndefined();
    expect(reflected.headers["access-control-allow-origin"]).toBe(FOREIGN);
    expect(reflected.headers["access-control-allow-credentials"]).toBe("true");
  });
});

describe("an HTTP API function that fails, on offline's HTTP server", () => {
  const gatewayCors = (port: number) =>
    replaceOfflineCors({
      port,
      onRequest: (_request, h) => h.continue,
      onPreResponse: (request, h) => {
        if (!request.response.isBoom) request.response.headers["x-cors-step"] = "ran";
        return h.continue;
      },
      replaced: () => undefined,
    });
  const failures: [string, () => Promise<unknown>][] = [
    ["throws", async () => Promise.reject(new Error("secret detail in /srv/app/functions/rest.ts"))],
    ["runs past its timeout", async () => Promise.reject(Object.assign(new Error("[504] - Lambda timeout."), { name: "LambdaTimeoutError" }))],
    ["cannot load its bundle", async () => Promise.reject(new Error("Cannot find module '/srv/app/.esbuild/.build/functions/rest.ts'"))],
  ];

  it("offline alone answers HTTP 200 with the error's message and stack trace (what the patch replaces)", async () => {
    const server = await offlineHttpServerWithFailingFunction(3928, async () => Promise.reject(new Error("secret detail")));
    const answer = (await server.inject({ method: "GET", url: "/fails" })) as HapiInjectResult & { payload: string };
    expect(answer.statusCode).toBe(200);
    expect(Object.keys(JSON.parse(answer.payload)).sort()).toEqual(["errorMessage", "errorType", "stackTrace"]);
  });

  for (const [how, fault] of failures) {
    it(`answers as API Gateway when the function ${how}: 500 {"message":"Internal Server Error"}, after the CORS step`, async () => {
      gatewayCors(3927);
      const server = await offlineHttpServerWithFailingFunction(3927, fault);
      const answer = (await server.inject({ method: "GET", url: "/fails" })) as HapiInjectResult & { payload: string };
      expect(answer.statusCode).toBe(GATEWAY_FUNCTION_ERROR.status);
      expect(JSON.parse(answer.payload)).toEqual({ message: "Internal Server Error" });
      expect(answer.payload).not.toMatch(/secret|stack|Cannot find module|timeout/i);
      expect(answer.headers["x-cors-step"]).toBe("ran");
    });
  }
});

describe("the Content-Type step on the HTTP server offline listens with (node's public http.server.request.start channel)", () => {
  it("reaches offline's Lambda event: a body without Content-Type stays one the handler refuses", async () => {
    keepMissingContentTypes();
    keepMissingContentTypes();
    const { default: LambdaProxyIntegrationEventV2 } = (await import(
      pathToFileURL(packageFile(OFFLINE_PACKAGE, "events/http/lambda-events/LambdaProxyIntegrationEventV2.js")).href
    )) as {
      default: new (request: unknown, stage: string, routeKey: string) => { create(): { headers: Record<string, string> } };
    };
    const hapi = await offlineHttpServer(0);
    // Hapi listens with node's http.Server: a server whose requests Node publishes on the channel.
    expect(hapi.listener).toBeInstanceOf(Server);
    let eventHeaders: Record<string, string> | undefined;
    let rawContentTypes: string[] = [];
    hapi.route({
      method: "POST",
      path: "/posts",
      handler: (request: unknown) => {
        eventHeaders = new LambdaProxyIntegrationEventV2(request, "local", "POST /posts").create().headers;
        const raw = (request as { raw: { req: { rawHeaders: string[] } } }).raw.req.rawHeaders;
        rawContentTypes = raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === "content-type");
        return "seen";
      },
    });
    await hapi.start();
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const body = Buffer.from('{"title":"no media type"}');
        const sent = httpRequest(
          { host: "127.0.0.1", port: hapi.info.port, method: "POST", path: "/posts", headers: { "content-length": String(body.length) } },
          (response) => {
            response.resume();
            response.on("end", () => resolve(response.statusCode ?? 0));
          },
        );
        sent.on("error", reject);
        sent.end(body);
      });
      expect(status).toBe(200);
      // Without the step, offline would have filled in application/json here.
      expect(eventHeaders?.["content-type"]).toBe("application/octet-stream");
      // Called twice, subscribed once: the header is named once.
      expect(rawContentTypes).toEqual(["content-type"]);
      expect(diagnosticsChannel.channel(REQUEST_START_CHANNEL).hasSubscribers).toBe(true);
    } finally {
      await hapi.stop();
    }
  });
});

interface StreamsOutput {
  ShardIterator?: string;
  NextShardIterator?: string;
  Records?: { dynamodb: { SequenceNumber: string } }[];
}

describe("the trimmed-iterator patch on serverless-offline-dynamodb-streams' client", () => {
  it("patches the client class the streams plugin constructs its client from", async () => {
    recoverTrimmedIterators();
    const pluginFile = packageFile(STREAMS_PACKAGE, "dynamodb-streams.js");
    const theirs = createRequire(pluginFile)("@aws-sdk/client-dynamodb-streams") as unknown;
    expect(theirs).toBe(offlineStreamsClient());
    const { DynamoDBStreamsClient } = offlineStreamsClient();
    expect((DynamoDBStreamsClient.prototype.send as { recoversTrimmed?: true }).recoversTrimmed).toBe(true);
  });

  it("resumes after the last record read when DynamoDB Local trims the iterator", async () => {
    recoverTrimmedIterators();
    const { DynamoDBStreamsClient } = createRequire(packageFile(STREAMS_PACKAGE, "dynamodb-streams.js"))(
      "@aws-sdk/client-dynamodb-streams",
    ) as typeof import("@aws-sdk/client-dynamodb-streams");
    const { GetRecordsCommand, GetShardIteratorCommand } = offlineStreamsClient();
    const client = new DynamoDBStreamsClient({
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    // Fault injection: DynamoDB Local's answers, without DynamoDB Local, in front of the transport.
    const asked: { command: string; input: Record<string, unknown> }[] = [];
    const answer = (command: string, input: Record<string, unknown>): StreamsOutput => {
      asked.push({ command, input });
      if (command === "GetShardIteratorCommand") {
        if (input.ShardIteratorType === "TRIM_HORIZON") return { ShardIterator: "from-start" };
        if (input.ShardIteratorType === "LATEST") return { ShardIterator: "latest" };
        return { ShardIterator: `after-${String(input.SequenceNumber)}` };
      }
      if (input.ShardIterator === "from-start") return { Records: [{ dynamodb: { SequenceNumber: "100" } }], NextShardIterator: "start-next" };
      if (input.ShardIterator === "start-next") return { Records: [], NextShardIterator: "start-end" };
      if (input.ShardIterator === "latest") throw Object.assign(new Error("trimmed"), { name: "TrimmedDataAccessException" });
      if (input.ShardIterator === "after-100") return { Records: [{ dynamodb: { SequenceNumber: "101" } }], NextShardIterator: "after-101-next" };
      throw new Error(`unexpected ${command} ${JSON.stringify(input)}`);
    };
    client.middlewareStack.add(
      (_next, context) => async (args) => ({
        output: answer(String(context.commandName), (args.input ?? {}) as Record<string, unknown>) as never,
        response: {},
      }),
      { step: "initialize", name: "offlinePatchesFaults" },
    );
    const send = client.send.bind(client) as unknown as (command: object) => Promise<StreamsOutput>;
    const stream = { StreamArn: "arn:aws:dynamodb:ddblocal:000000000000:table/Post/stream/1", ShardId: "shard-1" };
    const latest = await send(new GetShardIteratorCommand({ ...stream, ShardIteratorType: "LATEST" }));
    expect(latest.ShardIterator).toBe("latest");
    const page = await send(new GetRecordsCommand({ ShardIterator: latest.ShardIterator }));
    // The record written after startup arrives; the one before it is not replayed.
    expect(page.Records?.map((r) => r.dynamodb.SequenceNumber)).toEqual(["101"]);
    expect(asked.filter((a) => a.command === "GetShardIteratorCommand").map((a) => a.input.ShardIteratorType)).toEqual([
      "TRIM_HORIZON",
      "LATEST",
      "AFTER_SEQUENCE_NUMBER",
    ]);
  });

  it("holds a read of quiet streams until a handler run ends, then reads at once while records come", async () => {
    recoverTrimmedIterators();
    await wakeStreamsAfterHandlers();
    const { DynamoDBStreamsClient } = createRequire(packageFile(STREAMS_PACKAGE, "dynamodb-streams.js"))(
      "@aws-sdk/client-dynamodb-streams",
    ) as typeof import("@aws-sdk/client-dynamodb-streams");
    const { GetRecordsCommand } = offlineStreamsClient();
    const client = new DynamoDBStreamsClient({
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
    });
    // Fault injection: what reaches DynamoDB Local, without DynamoDB Local, in front of the transport.
    const sent: string[] = [];
    client.middlewareStack.add(
      (_next, _context) => async (args) => {
        const iterator = String((args.input as { ShardIterator?: string }).ShardIterator);
        sent.push(iterator);
        return {
          output: { Records: iterator === "with-record" ? [{ dynamodb: { SequenceNumber: "7" } }] : [], NextShardIterator: "next" } as never,
          response: {},
        };
      },
      { step: "initialize", name: "offlinePatchesPace" },
    );
    const send = client.send.bind(client) as unknown as (command: object) => Promise<StreamsOutput>;
    const { idleWait, lastActivity } = streamPace;
    // Quiet since long ago, and an idle wait no test outlives: only a handler run releases the read.
    Object.assign(streamPace, { idleWait: 1e9, lastActivity: -Infinity });
    const dir = mkdtempSync(join(tmpdir(), "offline-pace-"));
    const HandlerRunner = (await offlineHandlerRunner()) as unknown as new (
      funOptions: object,
      options: object,
      env: object,
    ) => { run: (event: unknown, context: object) => Promise<unknown>; cleanup: () => Promise<void> };
    writeFileSync(join(dir, "fn.mjs"), "export const handler = async () => 'written';\n");
    const runner = new HandlerRunner(
      { codeDir: dir, functionKey: "fn", handler: "fn.handler", servicePath: dir, timeout: 5, runtime: "nodejs22.x", functionName: "svc-local-fn" },
      {},
      {},
    );
    try {
      const held = send(new GetRecordsCommand({ ShardIterator: "with-record" }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sent).toEqual([]);
      expect(await runner.run({}, { functionName: "svc-local-fn", awsRequestId: "r" })).toBe("written");
      expect((await held).Records).toHaveLength(1);
      expect(sent).toEqual(["with-record"]);
      // The record keeps the streams active: the next read is sent without waiting for a handler.
      const page = await send(new GetRecordsCommand({ ShardIterator: "empty" }));
      expect(page.Records).toEqual([]);
      expect(sent).toEqual(["with-record", "empty"]);
    } finally {
      Object.assign(streamPace, { idleWait, lastActivity });
      await runner.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the handler gate on serverless-offline's HandlerRunner", () => {
  it("awaits the gate before the bundle is loaded, and has a worker that loaded an older generation load it afresh", async () => {
    const dir = mkdtempSync(join(tmpdir(), "offline-gate-"));
    const events = join(dir, "events.log");
    const order = (): string[] => readFileSync(events, "utf8").trim().split("\n");
    try {
      // The handler's module notes each time a worker loads it: the gate must have finished before.
      writeFileSync(events, "");
      writeFileSync(
        join(dir, "fn.mjs"),
        `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(events)}, "module loaded\\n");\nexport const handler = async (event) => ({ echoed: event.n });\n`,
      );
      let generation = 1;
      await gateOfflineHandlers(async (functionName) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        appendFileSync(events, `gate ${functionName}\n`);
        return generation;
      });
      const HandlerRunner = (await offlineHandlerRunner()) as unknown as new (
        funOptions: object,
        options: object,
        env: object,
      ) => { run: (event: unknown, context: object) => Promise<unknown>; cleanup: () => Promise<void> };
      // A worker thread per runner, as `npm start` runs them (offline's default).
      const runner = new HandlerRunner(
        { codeDir: dir, functionKey: "fn", handler: "fn.handler", servicePath: dir, timeout: 5, runtime: "nodejs22.x", functionName: "svc-local-fn" },
        {},
        {},
      );
      const context = { functionName: "svc-local-fn", awsRequestId: "r" };
      try {
        expect(await runner.run({ n: 7 }, context)).toEqual({ echoed: 7 });
        expect(order()).toEqual(["gate svc-local-fn", "module loaded"]);
        // Same generation: the loaded module serves again.
        expect(await runner.run({ n: 8 }, context)).toEqual({ echoed: 8 });
        expect(order().slice(2)).toEqual(["gate svc-local-fn"]);
        // A newer generation (a reload rebuilt the bundle): the worker is replaced and loads it again.
        generation = 2;
        expect(await runner.run({ n: 9 }, context)).toEqual({ echoed: 9 });
        expect(order().slice(3)).toEqual(["gate svc-local-fn", "module loaded"]);
        // Patched once: a second gate replaces the first instead of wrapping it again.
        await gateOfflineHandlers(async () => {
          appendFileSync(events, "second gate\n");
          return 2;
        });
        await runner.run({ n: 10 }, context);
        expect(order().slice(5)).toEqual(["second gate"]);
      } finally {
        await runner.cleanup();
      }
    } finally {
      await gateOfflineHandlers(async () => 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
