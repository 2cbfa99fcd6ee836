import { ConfigurationError } from "../config.ts";
import { SECRET_NAMES, SECRETS, type SecretName } from "./names.ts";
import { ssmCall, SsmCallError } from "./ssm-call.ts";
import { isLambdaRuntime, type LoadedSecrets } from "./values.ts";

interface GetParametersOutput {
  Parameters?: { Name?: string; ARN?: string; Type?: string; Value?: string }[];
  InvalidParameters?: string[];
}

let pending: Promise<LoadedSecrets> | undefined;

/**
 * Reads this function's secrets from SSM Parameter Store, once per cold start, before the
 * application is built (a function's composition awaits it, lib/core/compose.ts, and gives the values to
 * the application). Only in a Lambda runtime: every
 * `<secret>_PARAMETER` of the environment, in one GetParameters call with decryption. Elsewhere
 * the values come from the environment (./values.ts) and nothing is called.
 */
export function loadSecrets(env: NodeJS.ProcessEnv = process.env): Promise<LoadedSecrets> {
  pending ??= readSecrets(env);
  return pending;
}

/** The parameter names this function's environment gives, by the secret they hold. */
function requested(env: NodeJS.ProcessEnv): Map<string, SecretName> {
  const names = new Map<string, SecretName>();
  for (const secret of SECRET_NAMES) {
    const parameter = env[SECRETS[secret].environment];
    if (parameter) names.set(parameter, secret);
  }
  return names;
}

function described(names: Map<string, SecretName>, parameters: Iterable<string>): string {
  return [...parameters].map((parameter) => `'${parameter}' (${SECRETS[names.get(parameter) as SecretName].environment})`).join(", ");
}

/** The Lambda runtime gives the execution role's credentials in the environment. */
function credentialsOf(env: NodeJS.ProcessEnv) {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  if (!accessKeyId || !secretAccessKey)
    throw new ConfigurationError("No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) to read the secret store with");
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

export async function readSecrets(env: NodeJS.ProcessEnv = process.env): Promise<Map<SecretName, string>> {
  const values = new Map<SecretName, string>();
  if (!isLambdaRuntime(env)) return values;
  const names = requested(env);
  if (names.size === 0) return values;
  const region = env.AWS_REGION ?? "us-east-1";
  let answer: GetParametersOutput;
  try {
    answer = await ssmCall<GetParametersOutput>(
      "GetParameters",
      { Names: [...names.keys()], WithDecryption: true },
      {
        region,
        credentials: credentialsOf(env),
        ...(env.AWS_ENDPOINT_URL_SSM ? { endpoint: env.AWS_ENDPOINT_URL_SSM } : {}),
      },
    );
  } catch (error) {
    if (!(error instanceof SsmCallError)) throw error;
    const hint = error.name === "AccessDeniedException" ? ": the function's role must allow ssm:GetParameters on it (and kms:Decrypt with a customer key)" : "";
    throw new ConfigurationError(
      `Reading SSM parameter ${described(names, names.keys())} failed, ${error.name}${error.message ? `: ${error.message}` : ""}${hint}`,
    );
  }
  if (answer.InvalidParameters?.length) {
    throw new ConfigurationError(
      `SSM parameter ${described(names, answer.InvalidParameters)} does not exist in ${region}: create it as a SecureString (docs/deploying.md, "Secrets")`,
    );
  }
  for (const parameter of answer.Parameters ?? []) {
    // A parameter asked for by its ARN (one shared from another account) answers under its name.
    const asked = [parameter.Name, parameter.ARN].find((name) => name !== undefined && names.has(name));
    const secret = asked === undefined ? undefined : names.get(asked);
    if (!secret) continue;
    // A plain String is stored unencrypted and shown to whoever may describe parameters.
    if (parameter.Type !== "SecureString")
      throw new ConfigurationError(`SSM parameter ${described(names, [asked as string])} must be a SecureString, not ${String(parameter.Type)}`);
    if (parameter.Value) values.set(secret, parameter.Value);
  }
  const missing = [...names].filter(([, secret]) => !values.has(secret)).map(([parameter]) => parameter);
  if (missing.length > 0) throw new ConfigurationError(`SSM parameter ${described(names, missing)} came back without a value`);
  return values;
}
