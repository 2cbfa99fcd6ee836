import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * True only under `serverless offline` on a developer's machine: offline sets IS_OFFLINE, and a
 * real Lambda runtime always sets AWS_EXECUTION_ENV, which offline does not. Test runners' flags
 * (NODE_ENV=test, VITEST) play no part: they never relax a secret.
 */
export function isLocalOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.IS_OFFLINE === "true" && env.AWS_EXECUTION_ENV === undefined;
}

/** Where offline keeps what it generates once: `.data/` of the project (ignored by git). */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOCAL_DATA_DIR ?? join(process.cwd(), ".data");
}

/**
 * A secret generated on first use and kept in `.data/<name>` (mode 0600), so that `npm start`
 * needs no configuration and restarts keep sessions and tokens valid. Callers must check
 * `isLocalOffline()` first: a deployed stage gets its secrets from parameters only.
 */
export function localSecret(name: string, generate: () => string = () => randomBytes(48).toString("base64url"), env: NodeJS.ProcessEnv = process.env): string {
  const dir = localDataDir(env);
  const file = join(dir, name);
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(dir, { recursive: true });
    const value = generate();
    try {
      // `wx`: when two handlers start at once, the first writer wins and the other reads its value.
      writeFileSync(file, value, { mode: 0o600, flag: "wx" });
      return value;
    } catch {
      return readFileSync(file, "utf8").trim();
    }
  }
}
