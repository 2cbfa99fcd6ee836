import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { app } from "../app/index.ts";
import { authTables } from "../lib/auth/tables.ts";
import { DEFAULT_BATCH, migrate } from "../lib/auth/v3/migrate.ts";
import { MOVES_PER_TRANSACTION } from "../lib/auth/v3/move.ts";
import { v3Dataset, writeRows } from "../lib/auth/v3/seed-data.ts";
import { migrationTables } from "../lib/auth/v3/setup.ts";
import { TokenSealer } from "../lib/auth/v3/tokens.ts";
import { startDynamoDbLocal } from "../lib/local/dynamodb-local.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../lib/local/local-aws.ts";
import { tableDefinition } from "../lib/store/dynamodb-tables.ts";
import { barOn, type Figures } from "./lib/figures.ts";
import type { RunOptions } from "./lib/options.ts";
import { seeded, shuffled } from "./lib/order.ts";
import { progress } from "./lib/progress.ts";
import { summarise } from "./lib/stats.ts";

const CONCURRENCY = 4;

/**
 * Counts the TransactWriteItems calls a client makes (what the floor must repeat). A document
 * client shares its raw client's middleware stack, so the counter is removed again once read:
 * the next round adds its own, and the floor's calls never pass through it.
 */
function counted(raw: DynamoDBClient): { client: DynamoDBDocumentClient; transactions: () => number; detach: () => void } {
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  let n = 0;
  const name = "countTransactions";
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === "TransactWriteItemsCommand") n++;
      return next(args);
    },
    { step: "initialize", name },
  );
  return { client, transactions: () => n, detach: () => void client.middlewareStack.remove(name) };
}

async function createTables(raw: DynamoDBClient, prefix: string): Promise<() => Promise<void>> {
  const tables = migrationTables(app, prefix);
  const identity = app.models().find((m) => m.cls.identity);
  const idents = authTables(prefix).find((d) => d.TableName === tables.idents);
  if (!identity || !idents) throw new Error("no identity model or idents table");
  const definitions = [idents, { ...tableDefinition(identity, prefix), StreamSpecification: undefined }];
  await Promise.all(definitions.map((d) => raw.send(new CreateTableCommand(d))));
  return async () => {
    await Promise.all(definitions.map((d) => raw.send(new DeleteTableCommand({ TableName: d.TableName }))));
  };
}

/**
 * The floor: the same number of TransactWriteItems calls as the migration made, each with the
 * same number of key moves (a conditional put and a conditional delete per ident), the same
 * number in flight, moving the same v3 rows (so the same item sizes) that the migration moved:
 * no scan, no field map, no sealing, no conflict check, no report.
 */
async function floorRun(raw: DynamoDBClient, prefix: string, moved: Record<string, unknown>[], calls: number): Promise<number> {
  const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  const table = migrationTables(app, prefix).idents;
  const idents = moved.length;
  const rows = moved as ({ uuid: string } & Record<string, unknown>)[];
  await writeRows(client, table, rows);
  const perCall = Math.ceil(idents / calls);
  const groups = Array.from({ length: calls }, (_, c) => rows.slice(c * perCall, (c + 1) * perCall)).filter((g) => g.length > 0);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < groups.length) {
        const group = groups[next++] ?? [];
        await client.send(
          new TransactWriteCommand({
            TransactItems: group.flatMap((row) => [
              {
                Put: {
                  TableName: table,
                  Item: { ...row, uuid: `${row.uuid}:v4` },
                  ConditionExpression: "attribute_not_exists(#k)",
                  ExpressionAttributeNames: { "#k": "uuid" },
                },
              },
              {
                Delete: { TableName: table, Key: { uuid: row.uuid }, ConditionExpression: "attribute_exists(#k)", ExpressionAttributeNames: { "#k": "uuid" } },
              },
            ]),
          }),
        );
      }
    }),
  );
  return idents / ((performance.now() - started) / 1000);
}

/**
 * `webda auth migrate` throughput on DynamoDB Local: v3 idents upgraded per second (the seed
 * data: collisions, counters, sealed tokens), against a floor measured in the same run.
 */
export async function migrationSection(figures: Figures, options: RunOptions): Promise<void> {
  const size = options.quick ? 1_000 : 5_000;
  const rounds = options.quick ? 1 : 3;
  progress(`migration: starting DynamoDB Local (a discarded warm-up round, then ${rounds} x ${size} v3 idents)`);
  const db = await startDynamoDbLocal();
  const raw = new DynamoDBClient({ endpoint: db.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 6 });
  const sealer = new TokenSealer("bench-secret");
  const data = v3Dataset({ idents: size, cost: 4 });
  const ours: number[] = [];
  const floor: number[] = [];
  /** One migration on fresh tables: idents per second, the transactions it made, the rows it moved. */
  const migration = async (name: string, rows: typeof data.idents): Promise<{ rate: number; calls: number; moved: typeof data.idents }> => {
    const drop = await createTables(raw, `bench-m${name}-`);
    try {
      const { client, transactions, detach } = counted(raw);
      const tables = migrationTables(app, `bench-m${name}-`);
      let report: Awaited<ReturnType<typeof migrate>>;
      let seconds: number;
      try {
        await writeRows(client, tables.idents, rows);
        // Idents only: users are a second kind with their own writes, which the floor does not make.
        const started = performance.now();
        report = await migrate({ client, tables, batch: DEFAULT_BATCH, seal: (t) => sealer.seal(t), concurrency: CONCURRENCY });
        seconds = (performance.now() - started) / 1000;
      } finally {
        detach();
      }
      const calls = transactions();
      const rate = (report.idents.migrated + report.idents.failed.length) / seconds;
      const failed = new Set(report.idents.failed.map((f) => f.key));
      // The v3 rows the migration moved: not the conflicts, not the rows it skips (already v4,
      // or a provider v4 lacks), as many as it reports migrated.
      const moved = rows.filter((row) => !failed.has(String(row.uuid)) && /_(email|idp)$/.test(String(row.uuid))).slice(0, report.idents.migrated);
      progress(
        `migration ${name}: ${report.idents.migrated} migrated, ${report.idents.failed.length} conflicts in ${seconds.toFixed(1)} s, ${calls} transactions; ${rate.toFixed(0)} idents/s`,
      );
      return { rate, calls, moved };
    } finally {
      await drop();
    }
  };
  /** The floor on fresh tables: the same rows moved in as many bare transactions. */
  const floorOn = async (name: string, moved: typeof data.idents, calls: number): Promise<number> => {
    const drop = await createTables(raw, `bench-f${name}-`);
    try {
      const rate = await floorRun(raw, `bench-f${name}-`, moved, calls);
      progress(`migration ${name}: floor ${rate.toFixed(0)} idents/s`);
      return rate;
    } finally {
      await drop();
    }
  };
  try {
    // DynamoDB Local's JVM compiles its hot paths over the first several thousand requests:
    // without a discarded round as large as the measured ones, whichever side runs first on a
    // fresh JVM pays for that alone (a 1,000-ident warm-up still left round 1 slower). The
    // warm-up also fixes what the floor repeats: the same data gives the same moves every round.
    const reference = await migration("warmup", data.idents);
    await floorOn("warmup", reference.moved, reference.calls);
    // Ours and the floor in a random order each round (seed printed), not always ours first.
    const random = seeded(options.seed);
    progress(`migration: ours and the floor in a random order each round (seed ${options.seed})`);
    for (let r = 0; r < rounds; r++) {
      const sides = shuffled(["ours", "floor"] as const, random);
      for (const side of sides) {
        if (side === "ours") ours.push((await migration(String(r), data.idents)).rate);
        else floor.push(await floorOn(String(r), reference.moved, reference.calls));
      }
    }
    // Both sides once per round: the bar reads the per-round ratios (bench/lib/figures.ts barOn).
    const oursMeasured = { name: "ours", summary: summarise(ours), samples: ours };
    const floorMeasured = {
      name: `bare TransactWriteItems moving the same rows (up to ${MOVES_PER_TRANSACTION} moves each, ${CONCURRENCY} in flight)`,
      summary: summarise(floor),
      samples: floor,
    };
    figures.add({
      section: "migration",
      measure: `webda auth migrate, ${size} v3 idents, --batch ${DEFAULT_BATCH}`,
      unit: "idents/s",
      higherIsBetter: true,
      ours: oursMeasured,
      floor: floorMeasured,
      bar: barOn(">= 0.7x floor", oursMeasured, floorMeasured, 0.7, false),
      note: "ours includes the scans (two passes), the field map, sealing Idp tokens and the conflict round; the floor moves bare rows",
    });
  } finally {
    raw.destroy();
    await db.stop();
  }
}
