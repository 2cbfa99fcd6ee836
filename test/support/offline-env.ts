import { afterAll, beforeAll } from "vitest";

/**
 * For the calling test file: handlers run as under `serverless offline` with the `x-test-user`
 * hook on (IS_OFFLINE and ALLOW_TEST_USER), as in-process tests of the faces need; unset after.
 */
export function asServerlessOffline(): void {
  beforeAll(() => {
    process.env.IS_OFFLINE = "true";
    process.env.ALLOW_TEST_USER = "true";
  });
  afterAll(() => {
    delete process.env.IS_OFFLINE;
    delete process.env.ALLOW_TEST_USER;
  });
}
