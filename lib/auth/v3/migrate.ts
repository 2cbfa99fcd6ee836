import { BatchGetCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { forEachBounded, limiter, type Limiter } from "../../core/concurrency.ts";
import { upgradeIdent, type Row } from "./field-map.ts";
import { evaluatedPerCall, pages, type ScanContext } from "./scan-pages.ts";
export { CONFIRMING_SCAN_LIMIT } from "./scan-pages.ts";
import { idpIdentKey, legacyIdpSub, normalizeIssuer } from "../idp-keys.ts";
import { isV4Provider, keyShape, v4Key } from "./format.ts";
import { moveIdents, MOVES_PER_TRANSACTION } from "./move.ts";
import { KindTally, type MigrationReport } from "./report.ts";
import { TakenKeys } from "./taken-keys.ts";
import { migrateUsers, USERS_PER_TRANSACTION } from "./users.ts";

export interface MigrationTables {
  /** `${prefix}auth-idents`, keyed by `uuid`. */
  idents: string;
  /** The identity model's table (the sample's `User`). */
  users: string;
  /** The users table's partition key. */
  userKey: string;
}

export interface Progress {
  pass: number;
  kind: "idents" | "users";
  scanned: number;
  migrated: number;
  failed: number;
}

export interface MigrateOptions {
  client: DynamoDBDocumentClient;
  tables: MigrationTables;
  /** Scan page size (`--batch`), default 100. */
  batch?: number;
  dryRun?: boolean;
  /** Seals v3's plaintext provider tokens (TokenSealer.seal). */
  seal: (tokens: Record<string, unknown>) => Promise<string>;
  /** Asked before each page: true stops the run cleanly, reported as incomplete (Lambda deadline). */
  shouldStop?: () => boolean;
  onProgress?: (progress: Progress) => void;
  /** Transactions (of up to 50 key moves each) in flight at once. */
  concurrency?: number;
  /** A safety net: a run stops (incomplete) after this many passes that still upgraded rows. */
  maxPasses?: number;
  now?: () => Date;
  /**
   * The configured Idp issuers (configuredIssuers). Idp idents without an issuer (v3 `<sub>_idp`,
   * early v4 `<sub>:idp`) move to the issuer-keyed form only when there is exactly one; otherwise
   * each is reported failed (IDP_ISSUER_UNKNOWN) and left as it is.
   */
  idpIssuers?: readonly string[];
}

export const DEFAULT_BATCH = 100;
const DEFAULT_CONCURRENCY = 4;

/** What to do about a malformed key, naming the row: an operator removes it, then reruns. */
export function malformedGuidance(table: string, key: string): string {
  return (
    "This row is neither a v3 ident (<providerUid>_<provider>) nor a v4 one (<providerUid>:<provider>), so nothing can log in with it and it cannot be migrated. " +
    `Inspect it, remove it, then run the migration again: npx webda db delete --table ${table} --key '${key.replaceAll("'", "'\\''")}'` +
    " (add --local for the database of npm start)."
  );
}

/** Thrown inside a pass: the scan stops at once and the run reports it. */
class MalformedKeyFound extends Error {
  constructor(
    readonly key: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * `webda auth migrate`: upgrades every v3 ident to its v4 key (one transaction per ident) and
 * every v3 user's `__password`, page by page, repeating full scans until one upgrades nothing.
 * Idempotent: what is already v4 is left alone, so a run stopped anywhere is finished by the next.
 */
export async function migrate(options: MigrateOptions): Promise<MigrationReport> {
  const started = Date.now();
  const batch = options.batch ?? DEFAULT_BATCH;
  const dryRun = options.dryRun ?? false;
  const maxPasses = dryRun ? 1 : (options.maxPasses ?? 10);
  const idents = new KindTally();
  const users = new KindTally();
  const report: MigrationReport = {
    dryRun,
    passes: 0,
    idents: idents.report,
    users: users.report,
    incomplete: false,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
  };
  const context: PassContext = { options, batch, dryRun, idents, users, stopped: false };
  try {
    for (;;) {
      report.passes++;
      const upgraded = (await identPass(context, report.passes)) + (await userPass(context, report.passes));
      if (context.stopped) {
        report.incomplete = true;
        report.reason = "stopped before the end (time limit or interruption): run again to continue";
        break;
      }
      if (dryRun || upgraded === 0) break;
      if (report.passes >= maxPasses) {
        report.incomplete = true;
        report.reason = `rows were still being upgraded after ${maxPasses} passes (other writers?): run again`;
        break;
      }
    }
  } catch (error) {
    if (!(error instanceof MalformedKeyFound)) throw error;
    report.incomplete = true;
    report.aborted = { key: error.key, reason: error.reason, guidance: malformedGuidance(options.tables.idents, error.key) };
    report.reason = `malformed ident key '${error.key}': ${error.reason}`;
  }
  report.durationMs = Date.now() - started;
  return report;
}

/** A v3 ident (or an issuerless v4 Idp ident) on its way to its v4 key. */
interface Move {
  row: Row;
  provider: "email" | "idp";
  providerUid: string;
  target: string;
  /** The Idp issuer the row is assigned to. */
  issuer?: string;
  /** Already a v4 row (issuerless, or keyed before subs were escaped): only its key and issuer change. */
  rekey?: boolean;
}

function issuerUnknown(key: string): { key: string; code: "IDP_ISSUER_UNKNOWN"; message: string } {
  return {
    key,
    code: "IDP_ISSUER_UNKNOWN",
    message:
      "an Idp ident stored without its issuer, while not exactly one Idp service is configured: run the migration again with only the Idp service that issued it configured",
  };
}

interface PassContext extends ScanContext {
  options: MigrateOptions;
  dryRun: boolean;
  idents: KindTally;
  users: KindTally;
}

/**
 * What a pass needs to see: v3 rows (they carry `_type`), anything without `provider` (which no
 * v4 row lacks, so a malformed key is still found), issuerless Idp rows, and Idp rows whose `sub`
 * holds a character keys now escape (keyed before they were escaped; those already at their key
 * are passed over). Other v4 rows are filtered out by DynamoDB, so the confirming pass transfers
 * almost nothing.
 */
const LEGACY_ROWS = {
  expression:
    "attribute_exists(#type) OR attribute_not_exists(#provider) OR (#provider = :idp AND (attribute_not_exists(#issuer) OR contains(#uid, :pct) OR contains(#uid, :at) OR contains(#uid, :colon)))",
  names: { "#type": "_type", "#provider": "provider", "#issuer": "issuer", "#uid": "providerUid" },
  values: { ":idp": "idp", ":pct": "%", ":at": "@", ":colon": ":" },
};

/** One full scan of the idents table; returns the number of rows upgraded. */
async function identPass(context: PassContext, pass: number): Promise<number> {
  const { options, idents } = context;
  const table = options.tables.idents;
  const issuers = (options.idpIssuers ?? []).map(normalizeIssuer);
  const before = idents.report.migrated;
  // A dry run writes nothing, so it tracks the v4 keys its own upgrades would have taken.
  const claimed = new Set<string>();
  let scanned = 0;
  // Pages overlap: a page of 100 rows is only two transactions, so `concurrency` transactions stay
  // in flight only if the next pages start before the last ones finish. Bounded, so memory is too.
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const transactions = limiter(concurrency);
  const moving: Promise<void>[] = [];
  const inFlight = new Map<string, Promise<void>>();
  // Later passes find what an earlier one left: mostly conflicts, whose keys a read confirms.
  const taken = new TakenKeys(pass > 1 ? (keys) => existingKeys(options.client, table, keys) : undefined);
  try {
    for await (const rows of pages(context, table, LEGACY_ROWS, evaluatedPerCall(context, pass))) {
      scanned += rows.length;
      const moves: Move[] = [];
      for (const row of rows) {
        const shape = keyShape(row);
        if (shape.kind === "malformed") throw new MalformedKeyFound(String(row.uuid), shape.reason);
        const key = row.uuid as string;
        if (shape.kind === "v4" && shape.provider === "idp" && typeof row.issuer === "string" && typeof row.providerUid === "string") {
          // Keyed before subs were escaped: moved to its key under the issuer it names.
          const target = idpIdentKey(row.issuer, row.providerUid);
          if (target !== key) moves.push({ row, provider: "idp", providerUid: row.providerUid, target, issuer: row.issuer, rekey: true });
          continue;
        }
        // The login's own rule (legacyIdpSub): an Idp row without an issuer whose key is not its
        // `sub`'s is not taken for anyone's.
        const legacySub = shape.provider === "idp" ? legacyIdpSub(row) : undefined;
        if (shape.provider === "idp" && legacySub === undefined) {
          idents.fail({
            key,
            code: "IDENT_KEY_MISMATCH",
            message:
              "an Idp ident without an issuer that is neither '<providerUid>:idp' (with provider and providerUid) nor v3's '<sub>_idp': it is left as it is",
          });
          continue;
        }
        if (shape.kind === "v4" && shape.provider !== "idp") continue;
        if (!isV4Provider(shape.provider)) {
          idents.skip({ key, code: "UNSUPPORTED_PROVIDER", message: `v4 has no '${shape.provider}' provider: the row is left as it is` });
          continue;
        }
        if (shape.provider === "idp" && issuers.length !== 1) {
          idents.fail(issuerUnknown(key));
          continue;
        }
        const issuer = shape.provider === "idp" ? issuers[0] : undefined;
        const providerUid = legacySub ?? shape.providerUid;
        const rekey = shape.kind === "v4";
        moves.push({
          row,
          provider: shape.provider,
          providerUid,
          target: v4Key(shape.provider, providerUid, issuer),
          ...(issuer ? { issuer } : {}),
          ...(rekey ? { rekey } : {}),
        });
      }
      const seen = scanned;
      const reportProgress = () =>
        options.onProgress?.({ pass, kind: "idents", scanned: seen, migrated: idents.report.migrated, failed: idents.report.failed.length });
      if (context.dryRun) {
        await dryRunPage(context, moves, claimed);
        reportProgress();
        continue;
      }
      // Scan order decides which of two case variants wins (the second is the conflict), as when
      // pages ran one after the other: a move whose v4 key an earlier page still in flight may
      // take waits for that page, then finds the key taken.
      const earlier = [...new Set(moves.flatMap((m) => inFlight.get(m.target) ?? []))];
      const waits = moves.filter((m) => inFlight.has(m.target));
      const now = moves.filter((m) => !inFlight.has(m.target));
      const page = movePage(context, now, transactions, taken)
        .then(async () => {
          if (waits.length === 0) return;
          // If an earlier page failed, these never move: a rerun must find the order unchanged.
          await Promise.all(earlier);
          await movePage(context, waits, transactions, taken);
        })
        .then(reportProgress);
      // Awaited below or in `finally`; marked handled so a failure never goes unobserved meanwhile.
      page.catch(() => undefined);
      for (const m of moves) inFlight.set(m.target, page);
      // Released only once moved: a failed page keeps its keys, so no later page takes them first.
      void page.then(
        () => {
          for (const m of moves) if (inFlight.get(m.target) === page) inFlight.delete(m.target);
        },
        () => undefined,
      );
      moving.push(page);
      if (moving.length >= concurrency) await moving.shift();
    }
  } finally {
    // Whatever stopped the scan, the writes already sent finish and are counted in the report.
    await Promise.allSettled(moving);
  }
  await Promise.all(moving);
  return idents.report.migrated - before;
}

/**
 * Maps a page's rows and moves them in transactions of up to 50, a few in flight. Two case
 * variants of one email cannot share a transaction (it may not touch an item twice): the later
 * ones go in a second round, by when the first one's key is known taken and they are reported as
 * conflicts without being sent.
 */
async function movePage(context: PassContext, moves: Move[], transactions: Limiter, taken: TakenKeys): Promise<void> {
  const { options, idents } = context;
  if (moves.length === 0) return;
  await taken.learn(moves.map((m) => m.target));
  const now = (options.now?.() ?? new Date()).toISOString();
  const rounds: Move[][] = [[], []];
  const seen = new Set<string>();
  for (const move of moves) {
    (seen.has(move.target) ? rounds[1] : rounds[0])?.push(move);
    seen.add(move.target);
  }
  for (const round of rounds) {
    const known = round.filter((m) => taken.has(m.target));
    for (const move of known) idents.fail(identConflict(move.row.uuid as string, move.target));
    const open = round.filter((m) => !taken.has(m.target));
    const mapped = await Promise.all(
      open.map(async (move) => ({ oldKey: move.row.uuid as string, target: move.target, upgraded: await upgraded(move, options, now) })),
    );
    const chunks: (typeof mapped)[] = [];
    for (let i = 0; i < mapped.length; i += MOVES_PER_TRANSACTION) chunks.push(mapped.slice(i, i + MOVES_PER_TRANSACTION));
    await Promise.all(
      chunks.map(async (chunk) => {
        const outcomes = await transactions(() => moveIdents(options.client, options.tables.idents, chunk));
        chunk.forEach((move, i) => {
          const outcome = outcomes[i];
          // Moved or refused, the v4 key is now held (by this row, or by the one that made the
          // condition fail). A row another process took ("gone") says nothing sure about it.
          if (outcome !== "gone") taken.add(move.target);
          if (outcome === "moved") idents.migrated();
          else if (outcome === "gone") idents.skip({ key: move.oldKey, code: "ALREADY_MOVED", message: "another process upgraded this row during the run" });
          else idents.fail(identConflict(move.oldKey, move.target));
        });
      }),
    );
  }
}

/** The row a move writes: v3's field map, or a v4 Idp row given its issuer and key. */
async function upgraded(move: Move, options: MigrateOptions, now: string): Promise<Row> {
  if (move.rekey) return { ...move.row, uuid: move.target, issuer: move.issuer, updatedAt: now };
  return upgradeIdent(move.row, move.provider, move.providerUid, { seal: options.seal, now, ...(move.issuer ? { issuer: move.issuer } : {}) });
}

function identConflict(key: string, target: string): { key: string; code: "IDENT_CONFLICT"; message: string } {
  return {
    key,
    code: "IDENT_CONFLICT",
    message: `'${target}' already exists (a v4 ident of the same address, or a v3 one differing only by letter case): this row was left untouched`,
  };
}

/** Which of these ident keys exist, read consistently (BatchGetItem, keys only, 100 a call). */
async function existingKeys(client: DynamoDBDocumentClient, table: string, wanted: string[]): Promise<Set<string>> {
  const targets = [...new Set(wanted)];
  const existing = new Set<string>();
  for (let i = 0; i < targets.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = targets.slice(i, i + 100).map((uuid) => ({ uuid }));
    while (keys && keys.length > 0) {
      const result: BatchGetCommandOutput = await client.send(
        new BatchGetCommand({
          RequestItems: { [table]: { Keys: keys, ConsistentRead: true, ProjectionExpression: "#k", ExpressionAttributeNames: { "#k": "uuid" } } },
        }),
      );
      for (const item of result.Responses?.[table] ?? []) existing.add(item.uuid as string);
      keys = result.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return existing;
}

async function dryRunPage(context: PassContext, moves: { row: Row; target: string }[], claimed: Set<string>): Promise<void> {
  const { options, idents } = context;
  const existing = await existingKeys(
    options.client,
    options.tables.idents,
    moves.map((m) => m.target),
  );
  for (const move of moves) {
    const key = move.row.uuid as string;
    if (existing.has(move.target) || claimed.has(move.target)) {
      idents.fail({
        key,
        code: "IDENT_CONFLICT",
        message: `'${move.target}' would already exist (a v4 ident of the same address, or a v3 one differing only by letter case): this row would be left untouched`,
      });
    } else {
      claimed.add(move.target);
      idents.migrated();
    }
  }
}

/** One full scan of the users table for rows still holding a v3 `__password`. */
async function userPass(context: PassContext, pass: number): Promise<number> {
  const { options, users } = context;
  const before = users.report.migrated;
  let scanned = 0;
  const filter = { expression: "attribute_exists(#old)", names: { "#old": "__password" } };
  for await (const rows of pages(context, options.tables.users, filter, evaluatedPerCall(context, pass))) {
    scanned += rows.length;
    if (context.dryRun) for (let i = 0; i < rows.length; i++) users.migrated();
    else {
      const now = (options.now?.() ?? new Date()).toISOString();
      const chunks: Row[][] = [];
      for (let i = 0; i < rows.length; i += USERS_PER_TRANSACTION) chunks.push(rows.slice(i, i + USERS_PER_TRANSACTION));
      await forEachBounded(chunks, options.concurrency ?? DEFAULT_CONCURRENCY, async (chunk) => {
        const outcomes = await migrateUsers(options.client, options.tables.users, options.tables.userKey, chunk, now);
        chunk.forEach((row, i) => {
          if (outcomes[i] === "migrated") users.migrated();
          else
            users.skip({
              key: String(row[options.tables.userKey]),
              code: "CHANGED_DURING_RUN",
              message: "the user changed while being upgraded: the next pass takes it again",
            });
        });
      });
    }
    options.onProgress?.({ pass, kind: "users", scanned, migrated: users.report.migrated, failed: users.report.failed.length });
  }
  return users.report.migrated - before;
}
