/** The migration's report: counts per kind, what failed and why, and whether to run again. */

export type FailureCode = "IDENT_CONFLICT" | "WRITE_FAILED" | "IDP_ISSUER_UNKNOWN" | "IDENT_KEY_MISMATCH";
export type SkipCode = "UNSUPPORTED_PROVIDER" | "ALREADY_MOVED" | "CHANGED_DURING_RUN";

export interface Entry<Code extends string> {
  key: string;
  code: Code;
  message: string;
}

export interface KindReport {
  /** Rows upgraded (in a dry run: rows that would be). */
  migrated: number;
  /** v3 rows left as they are for a reason that is not an error (see `notes`). */
  skipped: number;
  /** Rows that could not be upgraded: each needs an operator's decision (see README). */
  failed: Entry<FailureCode>[];
  notes: Entry<SkipCode>[];
}

export interface MalformedKey {
  key: string;
  reason: string;
  guidance: string;
}

export interface MigrationReport {
  dryRun: boolean;
  /** Full scans run; a run repeats its scan until one upgrades nothing. */
  passes: number;
  idents: KindReport;
  users: KindReport;
  /** Stopped before the end (deadline, or a malformed key): run again once addressed. */
  incomplete: boolean;
  /** Set when a malformed ident key aborted the scan. */
  aborted?: MalformedKey;
  /** Why the run is incomplete, in words. */
  reason?: string;
  startedAt: string;
  durationMs: number;
}

export function emptyKind(): KindReport {
  return { migrated: 0, skipped: 0, failed: [], notes: [] };
}

/** Every key is reported once per run, whatever the number of passes that met it. */
export class KindTally {
  readonly report = emptyKind();
  private readonly failedKeys = new Set<string>();
  private readonly notedKeys = new Set<string>();

  migrated(): void {
    this.report.migrated++;
  }

  fail(entry: Entry<FailureCode>): void {
    if (this.failedKeys.has(entry.key)) return;
    this.failedKeys.add(entry.key);
    this.report.failed.push(entry);
  }

  skip(entry: Entry<SkipCode>): void {
    if (this.notedKeys.has(entry.key)) return;
    this.notedKeys.add(entry.key);
    this.report.skipped++;
    this.report.notes.push(entry);
  }
}

/** Exit codes of `webda auth migrate` (README "Migrating from v3"). */
export const EXIT = {
  /** Everything that can migrate has: switch `compatibility.v3` off once `failed` is empty too. */
  clean: 0,
  /** Bad command line. */
  usage: 2,
  /** Done, but rows failed (IDENT_CONFLICT): resolve them and rerun. */
  failures: 3,
  /** Stopped before the end (time limit, interruption): rerun to continue. */
  incomplete: 4,
  /** A malformed ident key aborted the scan: remove that row by hand and rerun. */
  malformed: 5,
  /** The database could not be reached or refused a request. */
  error: 1,
} as const;

export function exitCode(report: MigrationReport): number {
  if (report.aborted) return EXIT.malformed;
  if (report.incomplete) return EXIT.incomplete;
  if (report.idents.failed.length > 0 || report.users.failed.length > 0) return EXIT.failures;
  return EXIT.clean;
}
