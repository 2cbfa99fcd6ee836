import { fileURLToPath } from "node:url";

/**
 * The framework's fixture application's module (test/fixtures/blog/README.md), for the tests that
 * load an application by path as `npm start` and the live reload do, rather than import it.
 */
export const FIXTURE_APP_MODULE = fileURLToPath(new URL("../fixtures/blog/index.ts", import.meta.url));
