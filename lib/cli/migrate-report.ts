import type { MigrationTables } from "../auth/v3/migrate.ts";
import type { KindReport, MigrationReport } from "../auth/v3/report.ts";

const SHOWN = 10;

function kindLine(name: string, kind: KindReport, dryRun: boolean): string {
  return `  ${name.padEnd(7)} ${dryRun ? "would migrate" : "migrated"} ${kind.migrated}, skipped ${kind.skipped}, failed ${kind.failed.length}`;
}

function entries(title: string, list: { key: string; code: string; message: string }[]): string[] {
  if (list.length === 0) return [];
  const lines = [`  ${title}:`, ...list.slice(0, SHOWN).map((e) => `    ${e.code} ${JSON.stringify(e.key)}: ${e.message}`)];
  if (list.length > SHOWN) lines.push(`    ... and ${list.length - SHOWN} more (--json lists them all)`);
  return lines;
}

/** The human form of the report; `--json` prints the report object itself. */
export function renderReport(report: MigrationReport, tables: MigrationTables): string {
  const status = report.aborted ? "aborted, incomplete" : report.incomplete ? "incomplete" : report.dryRun ? "dry run, nothing written" : "complete";
  const lines = [
    `webda auth migrate: ${status} (${report.passes} pass${report.passes === 1 ? "" : "es"}, ${(report.durationMs / 1000).toFixed(1)} s; ${tables.idents}, ${tables.users})`,
    kindLine("idents", report.idents, report.dryRun),
    kindLine("users", report.users, report.dryRun),
    ...entries("failed idents", report.idents.failed),
    ...entries("skipped idents", report.idents.notes),
    ...entries("failed users", report.users.failed),
    ...entries("skipped users", report.users.notes),
  ];
  if (report.aborted) {
    lines.push(`  malformed ident key ${JSON.stringify(report.aborted.key)}: ${report.aborted.reason}`, `  ${report.aborted.guidance}`);
  } else if (report.incomplete) {
    lines.push(`  incomplete: ${report.reason ?? "run again"}`);
  } else if (!report.dryRun && report.idents.failed.length > 0) {
    if (report.idents.failed.some((f) => f.code === "IDENT_CONFLICT"))
      lines.push("  Resolve each IDENT_CONFLICT (keep one of the two idents, delete the other), then run again.");
    if (report.idents.failed.some((f) => f.code === "IDP_ISSUER_UNKNOWN"))
      lines.push("  IDP_ISSUER_UNKNOWN: run again with only the Idp service that issued those identities configured.");
  } else if (!report.dryRun) {
    lines.push("  Nothing left to migrate: compatibility.v3 can be set to false.");
  }
  return `${lines.join("\n")}\n`;
}
