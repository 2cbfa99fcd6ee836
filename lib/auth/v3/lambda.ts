import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Application } from "../../core/application.ts";
import { invocationHandler, type InvocationHandler } from "../../core/invocation-handler.ts";
import type { LambdaContextLike } from "../../core/invocation-lifecycle.ts";
import { log } from "../../core/log.ts";
import { countEvent } from "../../core/metrics.ts";
import { DEFAULT_BATCH, migrate } from "./migrate.ts";
import { exitCode, type MigrationReport } from "./report.ts";
import { migrationTables } from "./setup.ts";
import { TokenSealer } from "./tokens.ts";
import { configuredIssuers } from "../idp-keys.ts";

/** What the `authMigrate` function accepts: `--data '{"dryRun": true}'`, or the schedule's input. */
export interface MigrateEvent {
  dryRun?: boolean;
  batch?: number;
}

export interface InvalidEvent {
  code: 400;
  message: string;
  errors: { path: string; message: string }[];
}

/**
 * Time kept in reserve when the function stops: the page in flight (two transactions of 50
 * moves, well under a second in AWS) and writing the report. A run that stops early reports
 * `incomplete`, and the next invocation (the schedule's next tick, or a manual one) continues:
 * rows already upgraded are v4 and left alone.
 */
export const DEFAULT_RESERVE_MS = 10_000;

export function parseEvent(event: unknown): MigrateEvent | InvalidEvent {
  const errors: { path: string; message: string }[] = [];
  const input = event === null || event === undefined ? {} : event;
  if (typeof input !== "object" || Array.isArray(input))
    return { code: 400, message: "Invalid event", errors: [{ path: "/", message: "must be a JSON object" }] };
  const { dryRun, batch } = input as Record<string, unknown>;
  if (dryRun !== undefined && typeof dryRun !== "boolean") errors.push({ path: "/dryRun", message: "must be a boolean" });
  if (batch !== undefined && (typeof batch !== "number" || !Number.isInteger(batch) || batch < 1 || batch > 1000)) {
    errors.push({ path: "/batch", message: "must be a whole number from 1 to 1000" });
  }
  if (errors.length > 0) return { code: 400, message: "Invalid event", errors };
  return { ...(dryRun !== undefined ? { dryRun: dryRun as boolean } : {}), ...(batch !== undefined ? { batch: batch as number } : {}) };
}

export interface LambdaRun {
  app: Application;
  client: DynamoDBDocumentClient;
  prefix: string;
  /** Resolved after the event is checked, so a bad event is answered whatever the configuration. */
  secret: () => string;
  /** Lambda's `context.getRemainingTimeInMillis`. */
  remainingMs: () => number;
  reserveMs?: number;
}

type MigrationResult = (MigrationReport & { exitCode: number }) | InvalidEvent;

/**
 * The `authMigrate` function's handler: one run per invocation, opened and closed by
 * invocationHandler (its request id on every line, its metrics, its deadline). Without `remainingMs`, the time left
 * is Lambda's (`context.getRemainingTimeInMillis`).
 */
export function migrationHandler(run: Omit<LambdaRun, "remainingMs"> & { remainingMs?: () => number }): InvocationHandler<unknown, MigrationResult> {
  return invocationHandler<unknown, MigrationResult>({ service: "migrate", timeoutEarlyInMillis: 0 }, (event, context) => {
    const left = context as LambdaContextLike | undefined;
    const remainingMs = run.remainingMs ?? (() => left?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY);
    return migrationRun(event, { ...run, remainingMs });
  });
}

/**
 * One invocation: migrate until done or until the deadline draws near; the report is the result.
 * `context` (Lambda's) gives the run its request id.
 */
export function runMigrationInvocation(event: unknown, run: LambdaRun, context?: LambdaContextLike): Promise<MigrationResult> {
  return migrationHandler(run)(event, context);
}

async function migrationRun(event: unknown, run: LambdaRun): Promise<MigrationResult> {
  const parsed = parseEvent(event);
  if ("code" in parsed) {
    log.warn("auth.migrate.invalid_event", { errors: parsed.errors });
    return parsed;
  }
  const reserve = run.reserveMs ?? DEFAULT_RESERVE_MS;
  const sealer = new TokenSealer(run.secret());
  const tables = migrationTables(run.app, run.prefix);
  log.info("auth.migrate.start", { dryRun: parsed.dryRun ?? false, batch: parsed.batch ?? DEFAULT_BATCH, idents: tables.idents, users: tables.users });
  const report = await migrate({
    client: run.client,
    tables,
    batch: parsed.batch ?? DEFAULT_BATCH,
    dryRun: parsed.dryRun ?? false,
    seal: (tokens) => sealer.seal(tokens),
    idpIssuers: configuredIssuers(run.app.services()),
    shouldStop: () => run.remainingMs() < reserve,
    onProgress: (p) => log.debug("auth.migrate.progress", { ...p }),
  });
  const result = { ...report, exitCode: exitCode(report) };
  // Progress as metrics: what this run moved (a dry run moves nothing) and what it could not.
  if (!report.dryRun) {
    countEvent("MigratedIdents", report.idents.migrated);
    countEvent("MigratedUsers", report.users.migrated);
  }
  countEvent("MigrationFailures", report.idents.failed.length + report.users.failed.length);
  // One structured line per run, counts up front; the full lists stay in the returned report.
  log.info("auth.migrate.report", {
    dryRun: report.dryRun,
    incomplete: report.incomplete,
    passes: report.passes,
    idents: { migrated: report.idents.migrated, skipped: report.idents.skipped, failed: report.idents.failed.length },
    users: { migrated: report.users.migrated, skipped: report.users.skipped, failed: report.users.failed.length },
    ...(report.aborted ? { aborted: report.aborted } : {}),
    ...(report.reason ? { reason: report.reason } : {}),
    durationMs: report.durationMs,
  });
  return result;
}
