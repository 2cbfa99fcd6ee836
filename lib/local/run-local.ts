import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { signalGroup, terminate } from "./child-process.ts";
import { startDynamoDbLocal } from "./dynamodb-local.ts";
import type { DynamoDbLocal } from "./dynamodb-local.ts";
import { localAwsEnv } from "./local-aws.ts";
import { OFFLINE_PORTS, signalReady, spawnOffline } from "./offline.ts";
import { offlineOutputFilter } from "./offline-output.ts";
import { killWithParent } from "./parent-exit.ts";
import { launchers, whenAnyExits } from "./ancestors.ts";
import { assertPortsFree, freePort, isPortFree, LOCAL_HOST } from "./ports.ts";
import { npmConfigArgs, parseStartOptions, PORT_OPTIONS, START_USAGE } from "./start-options.ts";
import { ensureTables } from "./tables.ts";
import { ensureIndexes, removeIndexes } from "./table-indexes.ts";
import { assertLocalPlan, localTablePlan } from "./table-plan.ts";
import { prepareReloadStamp, startLiveReload } from "./live-reload/loop.ts";
import type { CacheFiles } from "../cli/cache.ts";
import type { StartOptions } from "./start-options.ts";

export interface RunLocalOptions {
  projectDir: string;
  argv: readonly string[];
  /** The application's tables for a prefix. */
  tables: (prefix: string) => CreateTableCommandInput[];
  /** Must equal serverless.yml's `${self:service}-${sls:stage}-` for the offline stage. */
  defaultTablePrefix: string;
  /** Servers started before offline and stopped after it (the local OpenID provider). */
  companions?: (() => Promise<Companion>)[];
  /**
   * Seeds the sample data when the tables are empty; resolves with what it did. Called for the
   * embedded database only (never for a DYNAMODB_ENDPOINT someone else owns), and not with --empty.
   */
  seed?: (database: LocalDatabase) => Promise<"seeded" | "kept">;
  /**
   * Live reload: watch these folders, and serve each edit of the application that loads and passes
   * its check (schema-cache/ rewritten, new tables and indexes created, offline restarted only when
   * serverless.yml's includes changed). `files` is the schema-cache/ offline starts with.
   */
  liveReload?: { appModule: string; watch: string[]; files: CacheFiles; sourcesRead?: number };
  /** Printed once the HTTP API answers. */
  banner?: (ready: { database: LocalDatabase; seeded: "seeded" | "kept" | "empty" }) => string;
}

/** A local server next to offline; its params reach serverless.yml as `--param`. */
export interface Companion {
  params: Record<string, string>;
  stop(): Promise<void>;
}

export interface LocalDatabase {
  endpoint: string;
  tablePrefix: string;
  embedded: boolean;
}

const OFFLINE_GRACE_MS = 10_000;
// The first answer needs esbuild's first bundle: tens of seconds on a slow machine.
const READY_POLL_MS = 300;
const READY_TIMEOUT_MS = 180_000;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Where the database is, known before it answers: offline is spawned with it while the JVM starts. */
interface DatabasePlan {
  endpoint: string;
  /** Named by DYNAMODB_ENDPOINT: someone else's, neither started nor seeded here. */
  external: boolean;
  /** DynamoDB Local's port, and whether --db-port was taken (another was picked). */
  port: number;
  moved: boolean;
}

async function planDatabase(options: StartOptions): Promise<DatabasePlan> {
  const external = process.env.DYNAMODB_ENDPOINT || undefined;
  if (external) return { endpoint: external, external: true, port: 0, moved: false };
  const moved = !(await isPortFree(options.dbPort));
  // A free port can still be taken before the JVM binds it: the start then fails, naming the port.
  const port = moved ? await freePort() : options.dbPort;
  return { endpoint: `http://${LOCAL_HOST}:${port}`, external: false, port, moved };
}

async function openDatabase(plan: DatabasePlan, options: StartOptions): Promise<DynamoDbLocal | undefined> {
  if (plan.external) {
    log(`DynamoDB at ${plan.endpoint} (DYNAMODB_ENDPOINT; not starting DynamoDB Local)`);
    return undefined;
  }
  const local = await startDynamoDbLocal({ port: plan.port, dataDir: options.dataDir });
  const where = options.dataDir === undefined ? "in memory" : `data in ${options.dataDir}`;
  const moved = plan.moved ? `; port ${options.dbPort} was taken` : "";
  log(`DynamoDB Local on ${local.endpoint} (${where}${moved})`);
  return local;
}

/** The serverless process's environment; handlers inherit its `AWS_*` variables. */
function offlineEnv(db: DatabasePlan, tablePrefix: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_ENDPOINT: db.endpoint, TABLE_PREFIX: tablePrefix };
  for (const [name, value] of Object.entries(localAwsEnv())) {
    // Our DynamoDB Local refuses real secret keys (they contain symbols); a foreign endpoint
    // may want the caller's own identity.
    if (!db.external || env[name] === undefined) env[name] = value;
  }
  if (!db.external) {
    delete env.AWS_SESSION_TOKEN;
    delete env.AWS_PROFILE;
  }
  return env;
}

/** Creates the tables (and indexes they lack) as the handlers will see them: same endpoint, same identity. */
async function createTables(endpoint: string, env: NodeJS.ProcessEnv, definitions: CreateTableCommandInput[], quiet = false, prefix?: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: env.AWS_REGION,
    credentials: {
      accessKeyId: env.AWS_ACCESS_KEY_ID ?? "",
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? "",
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    },
  });
  try {
    // At start, a database an earlier version wrote meets the plan a deploy would make (live
    // reload's later calls only add what a model edit declares).
    if (prefix !== undefined) assertLocalPlan(await localTablePlan(client, prefix, definitions));
    const { created, existing } = await ensureTables(client, definitions);
    const older = definitions.filter((d) => existing.includes(d.TableName ?? ""));
    // A --persist database from an older version of the models may hold an index the models no
    // longer declare (or declare with another key): deleted first, as the deploy's plan does.
    if (prefix !== undefined) {
      const removed = await removeIndexes(client, older);
      if (removed.length > 0) log(`indexes removed (no longer declared as they are): ${removed.join(", ")}`);
    }
    // ... and may lack a newer index.
    await ensureIndexes(client, older);
    if (quiet) return;
    const names = [...created.map((n) => `${n} (new)`), ...existing].sort();
    log(`tables: ${names.length > 0 ? names.join(", ") : "(none)"}`);
  } finally {
    client.destroy();
  }
}

/** Resolves once offline answers HTTP (any status), false if it stopped or took too long. */
async function waitForHttp(offline: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const url = `http://${LOCAL_HOST}:${OFFLINE_PORTS.http}/`;
  while (Date.now() < deadline) {
    if (offline.exitCode !== null || offline.signalCode !== null) return false;
    const answered = await fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
      async (r) => (await r.arrayBuffer(), true),
      () => false,
    );
    if (answered) return true;
    await sleep(READY_POLL_MS);
  }
  return false;
}

/** The running offline, and how to replace it (live reload) without stopping the rest. */
interface SupervisedOffline {
  /** Resolves with the exit code once offline has stopped for good (by itself or on a signal) and the database too. */
  running: Promise<number>;
  /** Stops offline and starts it again on the same ports; resolves once the new one answers HTTP. */
  restart: () => Promise<boolean>;
  current: () => ChildProcess;
  /** Stops offline, then what `stopOthers` stops; `running` resolves with `code`. */
  stop: (code: number) => Promise<void>;
  /** Whether a stop has begun (a signal, offline exiting, `stop`). */
  stopping: () => boolean;
}

/** Runs offline until it exits or npm start is stopped; then `stopOthers` (the companions, the database). */
function superviseOffline(spawnIt: () => ChildProcess, stopOthers: () => Promise<void>): SupervisedOffline {
  let offline = spawnIt();
  // Always the current offline's group: a restart replaces the process the signals go to.
  const sendGroup = (signal: NodeJS.Signals): void => {
    if (offline.pid !== undefined) signalGroup(offline.pid, signal);
  };
  const unregister = killWithParent(sendGroup);
  let stopping = false;
  let replacing = false;
  let resolveRunning: (code: number) => void = () => undefined;
  const running = new Promise<number>((resolve) => {
    resolveRunning = resolve;
  });

  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    stopWatching();
    await terminate(offline, sendGroup, OFFLINE_GRACE_MS);
    // Whatever offline left in its group (an esbuild service) goes with it.
    sendGroup("SIGKILL");
    unregister();
    await stopOthers();
    resolveRunning(code);
  };
  const watchOffline = (child: ChildProcess): void => {
    child.once("error", (error) => {
      log(`serverless offline could not start: ${error.message}`);
      void stop(1);
    });
    child.once("exit", (code, signal) => {
      // A restart ends this offline on purpose; only the current one ending stops npm start.
      if (replacing || child !== offline) return;
      if (!stopping) log(`serverless offline exited (${code ?? signal}); stopping DynamoDB`);
      void stop(stopping ? 0 : (code ?? 1));
    });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl-C: the user does not want to wait for a graceful stop.
      sendGroup("SIGKILL");
      process.exit(130);
    }
    log(`\n${signal}: stopping serverless offline and DynamoDB`);
    void stop(0);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  const stopWatching = whenAnyExits(launchers(), (gone) => {
    log(`\nprocess ${gone} that started npm start has gone: stopping serverless offline and DynamoDB`);
    void stop(0);
  });
  watchOffline(offline);

  const restart = async (): Promise<boolean> => {
    if (stopping) return false;
    replacing = true;
    try {
      await terminate(offline, sendGroup, OFFLINE_GRACE_MS);
      sendGroup("SIGKILL");
      // The ports must be free again before the new offline binds them.
      await waitForPortsFree();
      if (stopping) return false;
      offline = spawnIt();
      watchOffline(offline);
    } finally {
      replacing = false;
    }
    return waitForHttp(offline);
  };
  return { running, restart, current: () => offline, stop, stopping: () => stopping };
}

async function waitForPortsFree(): Promise<void> {
  const deadline = Date.now() + OFFLINE_GRACE_MS;
  while (Date.now() < deadline) {
    const free = await Promise.all(Object.values(OFFLINE_PORTS).map((p) => isPortFree(p)));
    if (free.every(Boolean)) return;
    await sleep(100);
  }
}

/**
 * `npm start`: DynamoDB Local, the tables and the seed, while serverless offline loads beside them;
 * offline serves once they are ready, until Ctrl-C. Returns the exit code.
 */
export async function runLocal(options: RunLocalOptions): Promise<number> {
  let start: StartOptions;
  try {
    start = parseStartOptions(options.argv, process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${START_USAGE}\n`);
    return 2;
  }
  if (start.help) {
    log(START_USAGE);
    return 0;
  }
  const fromNpm = npmConfigArgs(process.env).filter((a) => a.startsWith("--"));
  if (fromNpm.length > 0)
    log(`npm start: ${fromNpm.join(", ")} read from npm's configuration (npm warned it did not know ${fromNpm.length > 1 ? "them" : "it"})`);
  // Read from here on by everything that names a port (OFFLINE_PORTS, the local OpenID provider,
  // offline's arguments), and handed to offline's process.
  for (const p of PORT_OPTIONS) process.env[p.env] = String(start.ports[p.key]);

  await assertPortsFree(Object.values(OFFLINE_PORTS));
  const plan = await planDatabase(start);
  const tablePrefix = process.env.TABLE_PREFIX || options.defaultTablePrefix;
  const env = offlineEnv(plan, tablePrefix);
  const database: LocalDatabase = { endpoint: plan.endpoint, tablePrefix, embedded: !plan.external };
  let seeded: "seeded" | "kept" | "empty" = "empty";
  let local: DynamoDbLocal | undefined;
  const companions: Companion[] = [];
  const stopOthers = async (): Promise<void> => {
    await Promise.all(companions.map((c) => c.stop().catch(() => undefined)));
    await local?.stop();
  };
  // The JVM starts while the companions do; offline's params need theirs.
  const opening = openDatabase(plan, start).then((started) => (local = started));
  opening.catch(() => undefined);
  try {
    for (const startCompanion of options.companions ?? []) companions.push(await startCompanion());
  } catch (error) {
    await opening.catch(() => undefined);
    await stopOthers();
    throw error;
  }
  const params = Object.assign({}, ...companions.map((c) => c.params)) as Record<string, string>;
  const reload = options.liveReload;
  if (reload) await prepareReloadStamp(options.projectDir);
  // Quiet by default: one line per request (the handlers' METRIC line), no route table unless --routes.
  const filter = () => offlineOutputFilter({ routes: start.routes });
  // Offline loads and bundles while the database starts and is seeded; its servers wait for the
  // word (lib/local/offline-ready.mjs), so the first request already sees the seeded data.
  let markPrepared: (ok: boolean) => void = () => undefined;
  const prepared = new Promise<boolean>((resolve) => (markPrepared = resolve));
  const spawnIt = (): ChildProcess => {
    const child = spawnOffline({ projectDir: options.projectDir, dynamodbEndpoint: plan.endpoint, tablePrefix, env, params, filter, heldUntilReady: true });
    void prepared.then((ok) => signalReady(child, ok));
    return child;
  };
  const offlineStarted = Date.now();
  const offline = superviseOffline(spawnIt, stopOthers);
  const preparing = (async () => {
    await opening;
    await createTables(plan.endpoint, env, options.tables(tablePrefix), false, tablePrefix).catch((error: unknown) => {
      throw new Error(`the tables could not be created at ${plan.endpoint}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    });
    if (options.seed && !start.empty) {
      if (database.embedded) seeded = await options.seed(database);
      else log("seed: not seeding a database named by DYNAMODB_ENDPOINT (npm run seed does it on demand)");
    }
  })();
  try {
    // Stopped meanwhile (Ctrl-C, offline gone): nothing waits for the seed.
    const stoppedFirst = await Promise.race([preparing.then(() => false), offline.running.then(() => true)]);
    if (stoppedFirst) return offline.running;
    markPrepared(true);
  } catch (error) {
    markPrepared(false);
    // A Ctrl-C while the database starts ends the JVM too: that is the stop, not a failure.
    if (offline.stopping()) return offline.running;
    await offline.stop(1);
    throw error;
  }
  const firstAnswer = waitForHttp(offline.current());
  if (options.banner) {
    const render = options.banner;
    void firstAnswer.then((ready) => {
      if (ready) log(render({ database, seeded }));
    });
  }
  if (reload) {
    // Watching starts once the first bundle is served: offline's own start is not a change.
    // Saves made while offline starts are not lost: the watch counts what was saved since the
    // sources were read (`sourcesRead`) as changed.
    void firstAnswer.then(async (ready) => {
      if (!ready) return;
      const stop = await startLiveReload({
        projectDir: options.projectDir,
        appModule: reload.appModule,
        tablePrefix,
        watch: reload.watch,
        served: { files: reload.files, tables: options.tables(tablePrefix) },
        offlineStarted,
        sourcesRead: reload.sourcesRead,
        ensureTables: (tables) => createTables(plan.endpoint, env, tables, true),
        restartOffline: offline.restart,
        log,
      });
      void offline.running.then(stop);
    });
  }
  return offline.running;
}
