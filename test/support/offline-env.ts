import { afterAll, beforeAll } from "vitest";

/**
 * For the calling test file: handlers run as under `serverless offline` with the `x-test-user`
 * hook on (IS_OFFLINE and ALLOW_TEST_USER), as in-process tests of the faces need; unset after.
 */
export function asServerlessOffline(): void {
  withEnvironment({ IS_OFFLINE: "true", ALLOW_TEST_USER: "true" });
}

/** For the calling test file: `values` set in the environment before its tests, removed after. */
export function withEnvironment(values: Record<string, string>): void {
  beforeAll(() => {
    Object.assign(process.env, values);
  });
  afterAll(() => {
    for (const name of Object.keys(values)) delete process.env[name];
  });
}
