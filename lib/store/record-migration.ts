import { GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient, type ScanCommandOutput } from "@aws-sdk/lib-dynamodb";
import { forEachBounded } from "../core/concurrency.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { MODEL_VERSION_FIELD } from "../core/record-upgrade.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import { isConditionFailure } from "./dynamodb-errors.ts";
import { pickKey } from "./keys.ts";

type Row = Record<string, unknown>;

/** Where a run stands: what the next run resumes from, and the counts so far. */
export interface MigrationCheckpoint {
  model: string;
  table: string;
  version: number;
  /** The scan's resume key after the last page whose every record was settled; absent at the start. */
  after?: Row;
  counts: MigrationCounts;
}

export interface MigrationCounts {
  /** Records the scan evaluated (read, current or not). */
  scanned: number;
  /** Records found needing an upgrade. */
  found: number;
  /** Records written current-shaped (with --dryRun: that would be). */
  upgraded: number;
  /** Found old, then current or gone when written: another writer settled them first. */
  settledByOthers: number;
  /** Conditional writes that lost a race and were read and judged again. */
  retried: number;
  failed: number;
}

export interface MigrationFailure {
  key: Row;
  message: string;
}

export interface ModelMigrationReport {
  model: string;
  table: string;
  version: number;
  dryRun: boolean;
  counts: MigrationCounts;
  failures: MigrationFailure[];
  /** The run stopped before the end of the table (asked to): run again to resume. */
  incomplete: boolean;
  /** The checkpoint this run started from, when it resumed one. */
  resumedFrom?: Row;
  durationMs: number;
}

export interface MigrationOptions {
  client: DynamoDBDocumentClient;
  table: string;
  info: ModelInfo;
  /** Records per scan page (DynamoDB's `Limit`: evaluated, current or not). */
  batch: number;
  dryRun: boolean;
  /** Conditional writes in flight at once. */
  concurrency?: number;
  /** A checkpoint of an earlier run of the same model and table: the scan resumes after it. */
  resume?: MigrationCheckpoint;
  /** Why the upgraded record is invalid, if it is (written only when undefined); see the CLI. */
  check?: (record: Row) => string | undefined;
  /** Asked before each page: a true answer ends the run after the page in flight, incomplete. */
  shouldStop?: () => boolean;
  /** After each settled page (not in a dry run): where a run after a kill resumes. */
  onCheckpoint?: (checkpoint: MigrationCheckpoint) => Promise<void>;
  onProgress?: (counts: MigrationCounts) => void;
}

const ATTEMPTS = 8;
const SHOWN_FAILURES = 1000;

/** A Scan filter that keeps the records a read would serve upgraded (record-upgrade.ts's `needsUpgrade`). */
function staleFilter(info: ModelInfo): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const terms: string[] = [];
  if (info.upgrade.version > 1) {
    names["#mv"] = MODEL_VERSION_FIELD;
    values[":mv"] = info.upgrade.version;
    terms.push("attribute_not_exists(#mv)", "#mv < :mv");
  }
  Object.keys(info.upgrade.defaults).forEach((field, i) => {
    names[`#d${i}`] = field;
    values[":null"] = "NULL";
    terms.push(`attribute_not_exists(#d${i})`, `attribute_type(#d${i}, :null)`);
  });
  return { expression: terms.join(" OR "), names, values };
}

/**
 * Upgrades a model's stored records in place (`webda db migrate`): a consistent Scan of the records
 * a read would serve upgraded, page by page, each written current-shaped by a put conditional on
 * the `__version` it was read at (and on still existing). A write that lands on the record first
 * wins: the put fails, the record is read and judged again (current now, gone, or upgraded from its
 * new state), so a racing write is neither lost nor overwritten. `__version` itself is kept: the
 * record is served exactly as before (reads upgrade it already), so its ETag still holds.
 * Idempotent: a current record is never written. Resumable: a checkpoint after each settled page.
 */
export async function migrateRecords(options: MigrationOptions): Promise<ModelMigrationReport> {
  const started = Date.now();
  const { client, table, info } = options;
  const counts: MigrationCounts = options.resume
    ? { ...options.resume.counts }
    : { scanned: 0, found: 0, upgraded: 0, settledByOthers: 0, retried: 0, failed: 0 };
  const failures: MigrationFailure[] = [];
  const report = (incomplete: boolean): ModelMigrationReport => ({
    model: info.name,
    table,
    version: info.upgrade.version,
    dryRun: options.dryRun,
    counts,
    failures,
    incomplete,
    ...(options.resume?.after ? { resumedFrom: options.resume.after } : {}),
    durationMs: Date.now() - started,
  });
  if (!info.upgrade.active) return report(false);
  const filter = staleFilter(info);
  const read = (start: Row | undefined): Promise<ScanCommandOutput> => {
    const page = client.send(
      new ScanCommand({
        TableName: table,
        Limit: options.batch,
        ConsistentRead: true,
        FilterExpression: filter.expression,
        ExpressionAttributeNames: filter.names,
        ExpressionAttributeValues: filter.values,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    page.catch(() => undefined);
    return page;
  };

  const fail = (row: Row, message: string): void => {
    counts.failed++;
    if (failures.length < SHOWN_FAILURES) failures.push({ key: pickKey(info.table, row), message });
  };

  const settle = async (found: Row): Promise<void> => {
    let row: Row | undefined = found;
    for (let attempt = 1; row; attempt++) {
      if (!info.upgrade.needsUpgrade(row)) {
        counts.settledByOthers++;
        return;
      }
      const upgraded = { ...info.upgrade.upgrade(row) };
      const problem = options.check?.(upgraded);
      if (problem !== undefined) return fail(row, problem);
      if (options.dryRun) {
        counts.upgraded++;
        return;
      }
      const version = row[VERSION_FIELD];
      try {
        await client.send(
          new PutCommand({
            TableName: table,
            Item: upgraded,
            ConditionExpression: `attribute_exists(#k) AND ${typeof version === "number" ? "#ver = :ver" : "attribute_not_exists(#ver)"}`,
            ExpressionAttributeNames: { "#k": info.table.key.hash, "#ver": VERSION_FIELD },
            ...(typeof version === "number" ? { ExpressionAttributeValues: { ":ver": version } } : {}),
          }),
        );
        counts.upgraded++;
        return;
      } catch (error) {
        if (!isConditionFailure(error)) return fail(row, error instanceof Error ? error.message : String(error));
        if (attempt >= ATTEMPTS) return fail(row, `the record kept changing during ${ATTEMPTS} attempts: run again`);
        counts.retried++;
        const fresh: { Item?: Row } = await client.send(new GetCommand({ TableName: table, Key: pickKey(info.table, row), ConsistentRead: true }));
        row = fresh.Item;
      }
    }
    // Deleted between the scan and the write: nothing to upgrade.
    counts.settledByOthers++;
  };

  let start = options.resume?.after;
  let pending: Promise<ScanCommandOutput> | undefined = read(start);
  while (pending) {
    if (options.shouldStop?.()) {
      await pending.catch(() => undefined);
      return report(true);
    }
    const page: ScanCommandOutput = await pending;
    // The next page is read while this one is written.
    pending = page.LastEvaluatedKey ? read(page.LastEvaluatedKey) : undefined;
    const rows = (page.Items ?? []) as Row[];
    counts.scanned += page.ScannedCount ?? rows.length;
    counts.found += rows.length;
    await forEachBounded(rows, options.concurrency ?? 16, settle);
    start = page.LastEvaluatedKey;
    options.onProgress?.(counts);
    if (!options.dryRun && start) await options.onCheckpoint?.({ model: info.name, table, version: info.upgrade.version, after: start, counts });
  }
  return report(false);
}
