import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "aws-lambda";
import { app } from "../../fixtures/blog/index.ts";
import { createApp } from "../../fixtures/blog/definition.ts";
import { migrationHandler, runMigrationInvocation } from "../../../lib/auth/v3/lambda.ts";
import { migrationFunction } from "../../../lib/auth/v3/migration-function.ts";
import { loadSecrets } from "../../../lib/core/secrets/load.ts";
import { renderedValidators } from "../../support/rendered-validators.ts";
import { parseEmf, stdoutLinesOf } from "../../support/emf.ts";
import { withEnvironment } from "../../support/offline-env.ts";
import { clients, freshTables } from "./support.ts";

const validators = await renderedValidators(app);

// As the deployed function logs (info, JSON lines, metrics to stdout), to read its lines: set
// before the tests build the functions (each reads it as it is built), put back after the file.
withEnvironment({ LOG_LEVEL: "info", METRICS_FILE: "" });

const { raw, client } = clients();
type Line = Record<string, unknown>;

const context = (awsRequestId: string) => ({ awsRequestId, getRemainingTimeInMillis: () => 600_000 });

describe("the authMigrate function's correlation ids", () => {
  let prefix: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshTables(raw);
    drop = fresh.drop;
    prefix = fresh.tables.idents.slice(0, -"auth-idents".length);
  }, 60_000);

  afterAll(async () => {
    await drop();
    raw.destroy();
  });

  it("puts Lambda's request id on every line of a run, each run its own when two run at once", async () => {
    const handler = migrationHandler({ app, client, prefix, secret: () => "s" });
    const lines = await stdoutLinesOf(() =>
      Promise.all([handler({ dryRun: true, batch: 7 }, context("mig-a")), handler({ dryRun: true, batch: 9 }, context("mig-b"))]),
    );
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    const starts = parsed.filter((l) => l.message === "auth.migrate.start");
    expect(starts.map((l) => [l.batch, l.requestId]).sort()).toEqual([
      [7, "mig-a"],
      [9, "mig-b"],
    ]);
    const reports = parsed.filter((l) => l.message === "auth.migrate.report");
    expect(reports.map((l) => l.requestId).sort()).toEqual(["mig-a", "mig-b"]);
    // Each run's metrics line, under its own id.
    const metrics = lines.filter((l) => l.startsWith('{"_aws"')).map(parseEmf);
    expect(metrics.map((l) => [l.Service, l.Invocations, l.requestId]).sort()).toEqual([
      ["migrate", 1, "mig-a"],
      ["migrate", 1, "mig-b"],
    ]);
    // Every line written carries one of the two ids: none left without.
    expect(parsed.every((l) => l.requestId === "mig-a" || l.requestId === "mig-b")).toBe(true);
  });

  it("runMigrationInvocation given Lambda's context logs under its request id too", async () => {
    const lines = await stdoutLinesOf(() =>
      runMigrationInvocation({ dryRun: true }, { app, client, prefix, secret: () => "s", remainingMs: () => 600_000 }, context("mig-c")),
    );
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    expect(parsed.length).toBeGreaterThanOrEqual(3);
    expect(parsed.map((l) => l.requestId)).toEqual(parsed.map(() => "mig-c"));
  });

  it("the composed function (functions/migrate.ts's call) hands Lambda's context to the invocation", async () => {
    const handler = await migrationFunction({ app: createApp, secrets: loadSecrets, validators, tablePrefix: () => prefix, local: () => false });
    const lines = await stdoutLinesOf(() => handler({ dryRun: true }, context("mig-d") as unknown as Context));
    const parsed = lines.map((l) => JSON.parse(l) as Line);
    expect(parsed.some((l) => l.message === "auth.migrate.report")).toBe(true);
    expect(parsed.map((l) => l.requestId)).toEqual(parsed.map(() => "mig-d"));
  });
});
