import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBlock, type Output } from "../support/shell.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { codeBlocks, readmeSection } from "../support/readme.ts";

/**
 * docs/migrating-from-v3.md's walk-through, run line by line against a plain `npm start` (seeded
 * sample blog, no test-user hook, no secrets of the test run), as a reader pastes it: each line's
 * exit code is the one its comment gives, the counts seed:v3 predicts are the ones the migration
 * reports, and the logins the page lists answer as it says before and after.
 */
const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
const DOC = fileURLToPath(new URL("../../docs/migrating-from-v3.md", import.meta.url));
const COMMAND_TIMEOUT_MS = 240_000;
const DEFAULT_DYNAMODB = "http://127.0.0.1:8000";

interface Step {
  command: string;
  exit: number;
}

const block = codeBlocks(readmeSection("Walk-through with `npm run seed:v3`", readFileSync(DOC, "utf8"))).find((b) => b.lang === "sh");
const steps: Step[] = (block?.code ?? "")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => ({ command: line.replace(/\s+#.*$/, ""), exit: Number(/#\s*exit (\d+)/.exec(line)?.[1] ?? 0) }));

let offline: Offline | undefined;
let env: NodeJS.ProcessEnv = {};
const outputs: Output[] = [];
let upgradedByLogin = 0;
let usersUpgradedByLogin = 0;

function run(command: string): Promise<Output> {
  return runBlock(command, PROJECT_DIR, COMMAND_TIMEOUT_MS, env);
}

async function login(email: string, password: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${offline?.url ?? ""}/auth/email/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  return { status: response.status, text: await response.text() };
}

const BULK = "correct horse battery v3";
/** user2: verified, lowercase; user6: never verified; user13: typed as User13@Example.com; user7: has an upper-case twin. */
async function logins(): Promise<Record<string, number>> {
  const answers: Record<string, number> = {};
  for (const [email, password] of [
    ["dana@example.com", "dana-v3-password"],
    ["erin@example.com", "erin-v3-password"],
    ["user2@example.com", BULK],
    ["user6@example.com", BULK],
    ["user7@example.com", BULK],
    ["user13@example.com", BULK],
  ] as const) {
    answers[email] = (await login(email, password)).status;
  }
  return answers;
}

beforeAll(async () => {
  offline = await startOffline({ args: [], testUser: false, env: { APP_SECRET: undefined, AUTH_SIGNING_KEY: undefined } });
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(offline.output())?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${offline.output()}`);
  env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("VITEST")) delete env[name];
  for (const name of ["DYNAMODB_ENDPOINT", "TABLE_PREFIX", "APP_SECRET", "AUTH_SIGNING_KEY", "ALLOW_TEST_USER"]) delete env[name];
  // As the docs tell a reader whose DynamoDB Local moved off 8000.
  if (endpoint !== DEFAULT_DYNAMODB) env.DYNAMODB_ENDPOINT = endpoint;
}, 400_000);

afterAll(async () => {
  await offline?.stop();
}, 60_000);

describe("docs/migrating-from-v3.md walk-through, verbatim against npm start", () => {
  it("has the block, starting with seed:v3", () => {
    expect(steps.map((s) => s.command.split(" ").slice(0, 4).join(" "))).toEqual([
      "npm run seed:v3",
      "npx webda auth migrate",
      "npx webda auth migrate",
      "npx webda db delete",
      "npx webda auth migrate",
      "npx webda auth migrate",
    ]);
  });

  it("seeds v3 logins that answer as the page says before the migration", { timeout: COMMAND_TIMEOUT_MS + 60_000 }, async () => {
    const seeded = await run(steps[0]?.command ?? "");
    outputs.push(seeded);
    expect(seeded.code, seeded.stderr).toBe(steps[0]?.exit);
    const before = await logins();
    expect(before).toEqual({
      "dana@example.com": 200,
      "erin@example.com": 200,
      "user2@example.com": 200,
      "user6@example.com": 403,
      "user7@example.com": 200,
      "user13@example.com": 401,
    });
    // A v3 login that finds its ident upgrades it on the way (compatibility.v3): those are not
    // the migration's to count.
    upgradedByLogin = Object.values(before).filter((status) => status !== 401).length;
    // Only a login that succeeds rehashes the user's password (the user's own upgrade).
    usersUpgradedByLogin = Object.values(before).filter((status) => status === 200).length;
  });

  it("runs every later line with the exit code its comment gives", { timeout: 5 * COMMAND_TIMEOUT_MS }, async () => {
    for (const step of steps.slice(1)) {
      const out = await run(step.command);
      outputs.push(out);
      expect(out.code, `${step.command}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`).toBe(step.exit);
    }
    // The migration named the command that removes the malformed row, as the page runs it.
    expect(outputs[2]?.stdout).toContain("npx webda db delete --table blog-local-auth-idents --key 'orphan-row-without-provider'");
    expect(outputs[3]?.stdout).toContain('deleted "orphan-row-without-provider" from blog-local-auth-idents');
  });

  it("reports, over its runs, the counts seed:v3 predicted", () => {
    const predicted = /idents migrated (\d+), failed (\d+) \(IDENT_CONFLICT\), skipped (\d+).*users migrated (\d+)/.exec(outputs[0]?.stdout ?? "");
    expect(predicted, outputs[0]?.stdout).not.toBeNull();
    const [, migrated, failed, skipped, users] = (predicted ?? []).map(Number);
    const counts = (out: Output | undefined, kind: "idents" | "users"): number[] => {
      const match = new RegExp(`${kind}\\s+migrated (\\d+), skipped (\\d+), failed (\\d+)`).exec(out?.stdout ?? "");
      if (!match) throw new Error(`no ${kind} line in:\n${out?.stdout ?? ""}`);
      return match.slice(1).map(Number);
    };
    // The run that stopped at the malformed key had migrated what it scanned before it.
    const [stoppedIdents = 0] = counts(outputs[2], "idents");
    const [stoppedUsers = 0] = counts(outputs[2], "users");
    const [idents = 0, identsSkipped, identsFailed] = counts(outputs[4], "idents");
    const [usersMigrated = 0, , usersFailed] = counts(outputs[4], "users");
    const reported = {
      migrated: stoppedIdents + idents + upgradedByLogin,
      skipped: identsSkipped,
      failed: identsFailed,
      users: stoppedUsers + usersMigrated + usersUpgradedByLogin,
      usersFailed,
    };
    expect(reported, JSON.stringify({ reported, outputs: outputs.slice(2, 5).map((o) => o.stdout.split("\n").slice(0, 3)) })).toEqual({
      migrated,
      skipped,
      failed,
      users,
      usersFailed: 0,
    });
    // A run after that migrates nothing and still reports every conflict.
    expect(counts(outputs[5], "idents")).toEqual([0, skipped, failed]);
    expect(outputs[4]?.stdout).toContain("IDENT_CONFLICT");
  });

  it("keeps the v3 logins working after the migration, and the typed-case ones now log in", async () => {
    expect(await logins()).toEqual({
      "dana@example.com": 200,
      "erin@example.com": 200,
      "user2@example.com": 200,
      "user6@example.com": 403,
      "user7@example.com": 200,
      "user13@example.com": 200,
    });
  });
});
