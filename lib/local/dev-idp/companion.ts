import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { OFFLINE_PORTS } from "../offline.ts";
import type { Companion } from "../run-local.ts";
import { startDevIdp } from "./server.ts";
import { DEMO_PASSWORD, DEMO_USERS } from "./users.ts";

/** The default port, which the sample's local configuration names as its issuer (`npm start --idp-port` moves it). */
export const DEV_IDP_PORT = 3003;

/** The port this start's provider listens on: IDP_PORT (npm start sets it from its flags), or the default. */
export function devIdpPort(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.IDP_PORT);
  return Number.isInteger(value) && value >= 1 && value <= 65_535 ? value : DEV_IDP_PORT;
}
/** The one client the local provider registers: neutral, so that it names no project (npm start passes it as the Idp's client id). */
export const DEV_IDP_CLIENT_ID = "local-dev";
/** Relative to the project: where the provider's signing key is kept between starts. */
export const DEV_IDP_KEY_FILE = join(".data", "dev-idp", "signing-key.json");

/**
 * The local OpenID provider as an `npm start` companion: it starts before offline and hands the
 * sample its issuer, client id and a client secret fresh for each start, as deploy params.
 */
export function devIdpCompanion(projectDir: string, log: (line: string) => void): () => Promise<Companion> {
  return async () => {
    const secret = randomBytes(32).toString("base64url");
    const port = devIdpPort();
    const callbacks = ["127.0.0.1", "localhost"].map((host) => `http://${host}:${OFFLINE_PORTS.http}/auth/idp/callback`);
    let idp;
    try {
      idp = await startDevIdp({
        port,
        client: { id: DEV_IDP_CLIENT_ID, secret, redirectUris: callbacks },
        keyFile: join(projectDir, DEV_IDP_KEY_FILE),
      });
    } catch (error) {
      throw new Error(`the local OpenID provider could not listen on port ${port}: ${(error as Error).message}`, { cause: error });
    }
    log(
      `OpenID provider (local) on ${idp.issuer}: sign in at http://127.0.0.1:${OFFLINE_PORTS.http}/auth/idp as ${DEMO_USERS.map((u) => u.username).join(", ")} (password "${DEMO_PASSWORD}")`,
    );
    // The demo domain: carol (no `hd`) and mallory (another email domain) show the two refusals.
    // Every param the sample's Idp reads is given: offline would hand a `null` default to the
    // handlers as the string "null".
    const params = {
      idpIssuer: idp.issuer,
      idpClientId: DEV_IDP_CLIENT_ID,
      idpClientSecret: secret,
      idpHostedDomain: "example.com",
      idpAllowedEmailDomains: "example.com",
      appUrl: `http://127.0.0.1:${OFFLINE_PORTS.http}`,
    };
    return { params, stop: () => idp.close() };
  };
}
