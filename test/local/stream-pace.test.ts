import { describe, expect, it } from "vitest";
import { StreamPace } from "../../lib/local/stream-pace.mjs";

/** Whether `promise` has settled once everything already queued has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("the pace of offline's stream reads", () => {
  it("lets every read go at once while the streams give records, and holds them once quiet", async () => {
    let now = 0;
    // An idle wait no test outlives: only a wake releases a held read here.
    const pace = new StreamPace({ active: 2_000, idleWait: 1e9, now: () => now });
    expect(await settled(pace.beforeRead())).toBe(false);
    pace.wake();
    pace.read(3);
    now = 1_999;
    expect(await settled(pace.beforeRead())).toBe(true);
    // An empty read does not count as activity: two seconds after the records, reads wait.
    pace.read(0);
    now = 2_000;
    const held = [pace.beforeRead(), pace.beforeRead()];
    expect(await settled(Promise.all(held))).toBe(false);
    expect(pace.waiting.size).toBe(2);
    now = 2_500;
    pace.wake();
    expect(await settled(Promise.all(held))).toBe(true);
    expect(pace.waiting.size).toBe(0);
    // The wake counts as activity.
    now = 4_499;
    expect(await settled(pace.beforeRead())).toBe(true);
    now = 4_500;
    expect(await settled(pace.beforeRead())).toBe(false);
  });

  it("sends a held read after the idle wait when nothing wakes it", async () => {
    const pace = new StreamPace({ active: 2_000, idleWait: 5 });
    await pace.beforeRead();
    expect(pace.waiting.size).toBe(0);
  });
});
