import { request } from "node:http";
import { acquireOfflineLock } from "../../lib/local/offline-lock.ts";

/**
 * Where the run's shared `npm start` is governed (test/setup/shared-offline.ts sets it in the
 * environment before the workers fork); unset when nothing in the run shares a service.
 */
export const SHARED_OFFLINE_CONTROL = "MODELREST_SHARED_OFFLINE_CONTROL";

/**
 * Asks the run's shared service for `action` and resolves to its JSON answer once given (undefined
 * without a shared service). node:http, not fetch: an answer may wait minutes for other files,
 * past fetch's five-minute wait for response headers.
 */
export function askSharedOffline(action: "lease" | "release" | "yield" | "resume", timeoutMs: number): Promise<unknown> {
  const control = process.env[SHARED_OFFLINE_CONTROL];
  if (!control) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const asked = request(`${control}/${action}`, { method: "POST", signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        if (response.statusCode === 200) resolve(JSON.parse(text) as unknown);
        else reject(new Error(`shared npm start: ${action} answered ${response.statusCode}: ${text}`));
      });
      response.on("error", reject);
    });
    asked.on("error", reject);
    asked.end();
  });
}

/**
 * The fixed offline ports and .esbuild/ for the caller alone: the shared service (if the run has
 * one) stops once its files are done with it, then the offline lock is taken as every `npm start`
 * and packaging run takes it. The returned release gives both back, after which the shared service
 * starts again if a file asks for it.
 */
export async function takeOfflineTurn(timeoutMs: number): Promise<() => Promise<void>> {
  await askSharedOffline("yield", timeoutMs);
  let releaseLock: () => Promise<void>;
  try {
    releaseLock = await acquireOfflineLock(timeoutMs);
  } catch (error) {
    await askSharedOffline("resume", 30_000);
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await releaseLock();
    await askSharedOffline("resume", 30_000);
  };
}
