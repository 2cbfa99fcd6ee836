import { DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { app } from "../../app/index.ts";
import { serviceTables } from "../../lib/cli/tables.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { ensureTables } from "../../lib/local/tables.ts";

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
// Tables of their own: the seed must not add records to the tables other test files count.
const PREFIX = `seedcmd-${process.pid}-`;
const endpoint = inject("dynamodbEndpoint");
const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
const run = promisify(execFile);

async function seedCommand(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DYNAMODB_ENDPOINT: endpoint, TABLE_PREFIX: PREFIX };
  try {
    const { stdout, stderr } = await run(process.execPath, [join(PROJECT_DIR, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/seed.ts", ...args], {
      cwd: PROJECT_DIR,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  await ensureTables(client, serviceTables(app, PREFIX));
}, 60_000);

afterAll(async () => {
  for (const table of serviceTables(app, PREFIX)) await client.send(new DeleteTableCommand({ TableName: table.TableName })).catch(() => undefined);
  client.destroy();
});

describe("npm run seed against DynamoDB Local", () => {
  it("seeds, then adds nothing the second time", { timeout: 120_000 }, async () => {
    const first = await seedCommand();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/seed: 25 records created, 0 already there/);
    expect(first.stdout).toContain("Post: 6 created, 0 already there");
    const second = await seedCommand();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/seed: 0 records created, 25 already there/);
  });

  it("refuses a deployed stage unless forced by name, before touching anything", { timeout: 60_000 }, async () => {
    const refused = await seedCommand("--stage", "prod");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refusing to seed the deployed stage 'prod'");
    expect(refused.stderr).toContain("--force prod");
    const wrongName = await seedCommand("--stage", "prod", "--force", "staging");
    expect(wrongName.code).toBe(2);
    expect(wrongName.stdout).not.toContain("seed:");
  });
});
