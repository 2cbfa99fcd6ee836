import { CreateTableCommand, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startDynamoDbLocal } from "./dynamodb-local.ts";
import { localDynamoDbClient } from "./local-aws.ts";
import { freePort, LOCAL_HOST } from "./ports.ts";
import { isRunning } from "./processes.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "hold-dynamodb.ts");
const SLOW = 90_000;

async function tableNames(endpoint: string): Promise<string[]> {
  const client = localDynamoDbClient(endpoint);
  try {
    return (await client.send(new ListTablesCommand({}))).TableNames ?? [];
  } finally {
    client.destroy();
  }
}

async function gone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return true;
    await sleep(100);
  }
  return false;
}

/** Runs the fixture in a parent of its own and returns that parent with the JVM's pid. */
async function holdInChild(mode: "exit" | "wait") {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, mode], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const { pid } = JSON.parse(line) as { pid: number };
    return { child, javaPid: pid };
  }
  throw new Error(`fixture exited without reporting (code ${child.exitCode})`);
}

describe("startDynamoDbLocal", () => {
  it("answers on a free port and stop() leaves no JVM behind", { timeout: SLOW }, async () => {
    const db = await startDynamoDbLocal();
    expect(db.endpoint).toBe(`http://${LOCAL_HOST}:${db.port}`);
    expect(await tableNames(db.endpoint)).toEqual([]);
    expect(isRunning(db.pid)).toBe(true);
    await db.stop();
    expect(isRunning(db.pid)).toBe(false);
    await db.stop();
  });

  it("keeps tables across restarts when given a data directory", { timeout: SLOW }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "ddb-local-"));
    try {
      const first = await startDynamoDbLocal({ dataDir: join(dir, "data") });
      const client = localDynamoDbClient(first.endpoint);
      await client.send(
        new CreateTableCommand({
          TableName: "kept",
          BillingMode: "PAY_PER_REQUEST",
          KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
          AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
        }),
      );
      client.destroy();
      await first.stop();

      const second = await startDynamoDbLocal({ dataDir: join(dir, "data"), port: await freePort() });
      try {
        expect(await tableNames(second.endpoint)).toEqual(["kept"]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says which port failed when it is taken", { timeout: SLOW }, async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, LOCAL_HOST, resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    try {
      await expect(startDynamoDbLocal({ port, readyTimeoutMs: 30_000 })).rejects.toThrow(new RegExp(`port ${port} failed to start`));
    } finally {
      server.close();
    }
  });

  it.each(["exit", "SIGTERM", "SIGINT"] as const)("takes the JVM down when its parent goes (%s)", { timeout: SLOW }, async (how) => {
    const { child, javaPid } = await holdInChild(how === "exit" ? "exit" : "wait");
    expect(javaPid).toBeGreaterThan(0);
    if (how !== "exit") child.kill(how);
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)));
    expect(await gone(javaPid)).toBe(true);
  });
});
