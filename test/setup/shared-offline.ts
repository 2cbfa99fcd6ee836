import { SHARED_OFFLINE_CONTROL } from "../support/offline-turn.ts";
import { SharedOfflineControl } from "../support/shared-offline-control.ts";

/**
 * The e2e project's global setup: one `npm start` for the whole run, leased by its files
 * (test/support/shared-offline.ts). The control endpoint reaches the workers through the
 * environment, since they are forked after global setup.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const control = new SharedOfflineControl();
  process.env[SHARED_OFFLINE_CONTROL] = await control.listen();
  return async () => {
    delete process.env[SHARED_OFFLINE_CONTROL];
    await control.close();
  };
}
