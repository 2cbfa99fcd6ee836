import { afterAll, beforeAll } from "vitest";

/**
 * For the calling test file: handlers run as under `serverless offline` with the `x-test-user`
 * hook on (IS_OFFLINE and ALLOW_TEST_USER), as in-process tests of the faces need; as before after.
 */
export function asServerlessOffline(): void {
  withEnvironment({ IS_OFFLINE: "true", ALLOW_TEST_USER: "true" });
}

/**
 * For the calling test file: `values` set in the environment before its tests, and after them each
 * variable as it was (the next file in the worker sees the environment this one found).
 */
export function withEnvironment(values: Record<string, string>): void {
  const found = new Map<string, string | undefined>();
  beforeAll(() => {
    for (const name of Object.keys(values)) found.set(name, process.env[name]);
    Object.assign(process.env, values);
  });
  afterAll(() => {
    for (const [name, value] of found) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}
