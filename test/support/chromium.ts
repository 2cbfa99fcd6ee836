import { existsSync } from "node:fs";

/**
 * Where the browser tests find Chromium: CHROMIUM_PATH, else /usr/bin/chromium (what Debian's
 * `chromium` package installs, and what .ci/run checks for and installs).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Whether a browser test may skip: only outside CI. Under CI (process.env.CI) a missing browser
 * is no reason to skip: the test runs and fails, saying what is missing, so a green CI run has
 * driven every browser test.
 */
export function skipWithoutChromium(): boolean {
  return !existsSync(CHROMIUM) && !process.env.CI;
}

/** The check a browser test's beforeAll makes first: under CI, a missing browser fails it. */
export function requireChromium(): string {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH, or install Debian's chromium as .ci/run does): under CI a browser test fails rather than skips`,
    );
  return CHROMIUM;
}
