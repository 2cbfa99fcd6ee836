import { askSharedOffline } from "./offline-turn.ts";
import { startOffline, type Offline } from "./offline.ts";
import { SHARED_OFFLINE_OPTIONS, type SharedOfflineLease } from "./shared-offline-control.ts";

/**
 * The run's shared `npm start` (empty tables, test-user hook on), started once for every e2e file
 * that leases it: call in `beforeAll`, `stop()` in `afterAll` (which ends the lease, not the
 * service). Other files write to the same database at the same time, so a file writes records of
 * its own (unique slugs, emails, user ids) and never expects a table to hold only its records.
 * `output()` is the service's output up to the lease (its start lines: where DynamoDB Local is).
 * Outside a run that shares one (no e2e project's global setup), the file gets a service of its own.
 */
export async function sharedOffline(): Promise<Offline> {
  const lease = (await askSharedOffline("lease", 20 * 60_000)) as SharedOfflineLease | undefined;
  if (!lease) return startOffline(SHARED_OFFLINE_OPTIONS);
  let released = false;
  return {
    url: lease.url,
    pid: lease.pid,
    output: () => lease.output,
    // The lease carries the output as of its start: what it holds is all there will be.
    waitForOutput: (text: string) =>
      lease.output.includes(text) ? Promise.resolve() : Promise.reject(new Error(`the shared service did not print ${JSON.stringify(text)}:\n${lease.output}`)),
    stop: async () => {
      if (released) return;
      released = true;
      await askSharedOffline("release", 30_000);
    },
  };
}
