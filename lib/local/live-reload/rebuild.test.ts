import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_APP_MODULE } from "../../../test/support/fixture-app.ts";
import { waitFor } from "../../../test/support/wait.ts";
import { Checker, checkInChild } from "./rebuild.ts";

const PROJECT_DIR = fileURLToPath(new URL("../../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "live-reload-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function module(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

describe("checkInChild", { timeout: 60_000 }, () => {
  it("renders the application's schema-cache and tables in a fresh process", async () => {
    const result = await checkInChild(PROJECT_DIR, FIXTURE_APP_MODULE, "live-");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(result.files)).toEqual(expect.arrayContaining(["routes.json", "functions.json", "validators.mjs"]));
    expect(result.tables.map((t) => t.TableName)).toContain("live-Post");
  });

  it("reports a definition that fails its check, with the check's message", async () => {
    const failing = module("refused.ts", 'throw new Error("service publisher: option destination must be a string");\nexport const app = {};\n');
    expect(await checkInChild(PROJECT_DIR, failing, "live-")).toEqual({ ok: false, error: expect.stringContaining("option destination must be a string") });
  });

  it("reports a syntax error naming the file", async () => {
    const broken = module("broken.ts", "export const = ;\n");
    const result = await checkInChild(PROJECT_DIR, broken, "live-");
    expect(result).toEqual({ ok: false, error: expect.stringContaining("broken.ts") });
  });

  it("reports a module without an app", async () => {
    const empty = module("empty.ts", "export const nothing = 1;\n");
    expect(await checkInChild(PROJECT_DIR, empty, "live-")).toEqual({ ok: false, error: expect.stringContaining("exports no `app`") });
  });
});

describe("Checker", { timeout: 120_000 }, () => {
  it("checks with a spare started before the save, which reads the sources as they are at the check", async () => {
    const checker = new Checker(PROJECT_DIR);
    try {
      const file = module("later.ts", "export const nothing = 1;\n");
      checker.warm();
      await waitFor(() => checker.warmed, Boolean, "the spare to load its dependencies", 100_000);
      // Saved after the spare started: the spare must not have read it.
      writeFileSync(file, "export const = ;\n");
      expect(await checker.check(file, "live-")).toEqual({ ok: false, error: expect.stringContaining("later.ts") });
      expect(checker.lastFromSpare).toBe(true);
      // Each check in a process of its own: the next one sees the next save.
      expect(checker.warmed).toBe(false);
      checker.warm();
      await waitFor(() => checker.warmed, Boolean, "the next spare", 100_000);
      const result = await checker.check(FIXTURE_APP_MODULE, "live-");
      expect(result.ok).toBe(true);
      expect(checker.lastFromSpare).toBe(true);
      // No spare waiting: a fresh process checks, and says so.
      expect((await checker.check(FIXTURE_APP_MODULE, "live-")).ok).toBe(true);
      expect(checker.lastFromSpare).toBe(false);
    } finally {
      checker.close();
    }
  });
});
