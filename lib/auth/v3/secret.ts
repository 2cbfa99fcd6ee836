import { ConfigurationError } from "../../core/config.ts";

/**
 * The secret that seals provider tokens: the deployed `APP_SECRET`, so that the service can open
 * what the migration sealed. Without it only a local database may be migrated, with the local
 * development secret the offline service uses.
 */
export function applicationSecretForTools(env: NodeJS.ProcessEnv, local = false): string {
  const secret = env.APP_SECRET && env.APP_SECRET !== "unset" ? env.APP_SECRET : undefined;
  if (secret) return secret;
  if (local || env.IS_OFFLINE === "true") return "local-development-secret-not-for-deployment";
  throw new ConfigurationError("APP_SECRET is not set: the migration seals provider tokens with the service's secret; set it to the deployed stage's appSecret");
}
