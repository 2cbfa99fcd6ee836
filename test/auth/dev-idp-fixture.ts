import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startDevIdp, type DevIdp } from "../../lib/local/dev-idp/server.ts";

export const TEST_CLIENT_SECRET = "test-client-secret";

/** A local OpenID provider (its own issuer and signing key) for the tests of the calling file. */
export interface DevIdpFixture {
  readonly idp: DevIdp;
  /** The provider's signing key, for forging ID tokens it would have signed. */
  readonly keyFile: string;
}

/** Starts one before the file's tests and closes it after them; its client redirects to `<app>/auth/idp/callback`. */
export function devIdpFixture(app: string): DevIdpFixture {
  const state: { idp?: DevIdp; keyFile?: string; dir?: string } = {};
  beforeAll(async () => {
    state.dir = await mkdtemp(join(tmpdir(), "dev-idp-"));
    state.keyFile = join(state.dir, "key.json");
    state.idp = await startDevIdp({
      port: 0,
      client: { id: "test-client", secret: TEST_CLIENT_SECRET, redirectUris: [`${app}/auth/idp/callback`] },
      keyFile: state.keyFile,
    });
  });
  afterAll(async () => {
    await state.idp?.close();
    if (state.dir) await rm(state.dir, { recursive: true, force: true });
  });
  return {
    get idp(): DevIdp {
      if (!state.idp) throw new Error("the local provider starts in beforeAll");
      return state.idp;
    },
    get keyFile(): string {
      return state.keyFile ?? "";
    },
  };
}
