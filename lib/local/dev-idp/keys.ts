import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

/**
 * The local provider's signing key (RS256, as most issuers use), generated on first start and kept
 * in `.data/` so that restarts keep earlier ID tokens verifiable and tests can forge tokens signed
 * by the provider's own key (wrong audience, expired) next to ones signed by a stranger's.
 */
export async function loadSigningKey(file: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = await exportJWK(privateKey);
    const key = { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" };
    await mkdir(dirname(file), { recursive: true });
    try {
      await writeFile(file, `${JSON.stringify(key)}\n`, { mode: 0o600, flag: "wx" });
      return key;
    } catch {
      // Another start wrote it first: use that one.
      return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    }
  }
}
