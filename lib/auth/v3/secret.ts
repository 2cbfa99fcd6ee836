import { applicationSecret } from "../../core/application.ts";
import { localSecret } from "../../core/local-secret.ts";
import { NO_SECRETS, secretValue, type LoadedSecrets } from "../../core/secrets/values.ts";

/**
 * The secret that seals provider tokens must be the service's own, or the service could not open
 * what the migration wrote: the deployed stage's `APP_SECRET`, or, for the database of
 * `npm start` (`--local`, `serverless invoke local`), the one offline generated in `.data/`. A
 * function passes what it read from the secret store at cold start (`loaded`).
 */
export function applicationSecretForTools(env: NodeJS.ProcessEnv, local = false, loaded: LoadedSecrets = NO_SECRETS): string {
  if (!secretValue("APP_SECRET", env, loaded) && local) return localSecret("app-secret", undefined, env);
  return applicationSecret(env, loaded);
}
