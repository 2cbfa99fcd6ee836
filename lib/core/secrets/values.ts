import { SECRETS, type SecretName } from "./names.ts";

/**
 * A Lambda runtime: AWS sets AWS_EXECUTION_ENV, serverless offline does not. What else the
 * environment says (IS_OFFLINE, test flags) never makes a deployed function take a secret from it.
 */
export function isLambdaRuntime(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AWS_EXECUTION_ENV !== undefined;
}

/** What ./load.ts read from the secret store at a cold start; the application holds it (ApplicationParts.secrets). */
export type LoadedSecrets = ReadonlyMap<SecretName, string>;

export const NO_SECRETS: LoadedSecrets = new Map();

/**
 * A secret's value, undefined when there is none: in a Lambda runtime only what was read from the
 * secret store at cold start (`loaded`, which the application was composed with); elsewhere (`npm start`, tests, the CLI) the environment variable of
 * the same name ("unset" is serverless.yml's word for none).
 */
export function secretValue(name: SecretName, env: NodeJS.ProcessEnv = process.env, loaded: LoadedSecrets = NO_SECRETS): string | undefined {
  if (isLambdaRuntime(env)) return loaded.get(name);
  const value = env[name];
  return value && value !== "unset" ? value : undefined;
}

/** Where a secret comes from, for a configuration error: never its value. */
export function secretOrigin(name: SecretName, env: NodeJS.ProcessEnv = process.env): string {
  const { environment, deployParameter } = SECRETS[name];
  if (!isLambdaRuntime(env)) return `the ${name} environment variable`;
  const parameter = env[environment];
  return parameter ? `the SSM parameter '${parameter}' (${environment})` : `an SSM parameter: deploy with --param ${deployParameter}=<SSM parameter name>`;
}
