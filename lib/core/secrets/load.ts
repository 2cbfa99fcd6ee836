import { ConfigurationError } from "../config.ts";
import { SECRET_NAMES, SECRETS, type SecretName } from "./names.ts";
import { isRegion, ssmCall, SsmCallError } from "./ssm-call.ts";
import { isLambdaRuntime, type LoadedSecrets } from "./values.ts";

// What each environment object's parameters read: a cold start reads once for process.env, and a
// test (or a tool) that passes an environment of its own is a cold start of its own, with nothing
// of this module to reset.
const read = new WeakMap<NodeJS.ProcessEnv, Promise<LoadedSecrets>>();

/**
 * Reads this function's secrets from SSM Parameter Store, once per cold start (once per
 * environment object), before the application is built (a function's composition awaits it,
 * lib/core/compose.ts, and gives the values to the application). Only in a Lambda runtime: every
 * `<secret>_PARAMETER` of the environment, in one GetParameters call with decryption. Elsewhere
 * the values come from the environment (./values.ts) and nothing is called.
 */
export function loadSecrets(env: NodeJS.ProcessEnv = process.env): Promise<LoadedSecrets> {
  let pending = read.get(env);
  if (!pending) {
    pending = readSecrets(env);
    read.set(env, pending);
  }
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

/** The parameters named, each with the variable that gave it: never a value. */
function described(names: Map<string, SecretName>, parameters: Iterable<string>): string {
  return [...parameters].map((parameter) => `'${parameter}' (${SECRETS[names.get(parameter) as SecretName].environment})`).join(", ");
}

/** One parameter of a GetParameters answer, as far as its shape was checked. */
interface AnsweredParameter {
  Name?: unknown;
  ARN?: unknown;
  Type?: unknown;
  Value?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The answer's shape, checked before anything of it is used: an object whose `Parameters` (when
 * present) is a list of objects and whose `InvalidParameters` is a list of the names asked. A
 * wrong shape (`null`, a list, a proxy's JSON) fails naming the parameters, never quoting it.
 */
function checkedAnswer(answer: unknown, names: Map<string, SecretName>): { parameters: AnsweredParameter[]; invalid: string[] } {
  const wrong = (what: string) => new ConfigurationError(`Reading SSM parameter ${described(names, names.keys())} failed: ${what}`);
  if (!isObject(answer))
    throw wrong(`the answer is ${answer === null ? "null" : Array.isArray(answer) ? "a list" : `a ${typeof answer}`}, not a GetParameters result`);
  const { Parameters: parameters = [], InvalidParameters: invalid = [] } = answer;
  if (!Array.isArray(parameters) || !parameters.every(isObject)) throw wrong("the answer's Parameters is not a list of parameters");
  if (!Array.isArray(invalid) || !invalid.every((name) => typeof name === "string" && names.has(name)))
    throw wrong("the answer's InvalidParameters is not a list of the names asked");
  return { parameters: parameters as AnsweredParameter[], invalid: invalid as string[] };
}

/**
 * The region the call goes to, checked before it builds a host name or a signature: Lambda sets
 * AWS_REGION, so a missing or malformed one is a broken environment, not a default to guess.
 */
function regionOf(env: NodeJS.ProcessEnv): string {
  const region = env.AWS_REGION;
  if (region === undefined || region === "") throw new ConfigurationError("AWS_REGION is not set: the secret store's region is unknown");
  if (!isRegion(region))
    throw new ConfigurationError(`AWS_REGION is not an AWS region name (such as us-east-1): the secret store's endpoint cannot be built from it`);
  return region;
}

/** The SDK's own endpoint override, when set: an http(s) URL, else the function does not start. */
function endpointOf(env: NodeJS.ProcessEnv): string | undefined {
  const endpoint = env.AWS_ENDPOINT_URL_SSM;
  if (endpoint === undefined || endpoint === "") return undefined;
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || url.username !== "" || url.password !== "")
    throw new ConfigurationError("AWS_ENDPOINT_URL_SSM is not an http(s) URL without credentials");
  return endpoint;
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
  const region = regionOf(env);
  const endpoint = endpointOf(env);
  let answer: unknown;
  try {
    answer = await ssmCall(
      "GetParameters",
      { Names: [...names.keys()], WithDecryption: true },
      {
        region,
        credentials: credentialsOf(env),
        ...(endpoint === undefined ? {} : { endpoint }),
      },
    );
  } catch (error) {
    if (!(error instanceof SsmCallError)) throw error;
    const hint = error.name === "AccessDeniedException" ? ": the function's role must allow ssm:GetParameters on it (and kms:Decrypt with a customer key)" : "";
    // The error's name and message are ours (./ssm-call.ts): never the answer's body or SSM's own message.
    throw new ConfigurationError(`Reading SSM parameter ${described(names, names.keys())} failed, ${error.name}: ${error.message}${hint}`);
  }
  const { parameters, invalid } = checkedAnswer(answer, names);
  if (invalid.length > 0) {
    throw new ConfigurationError(
      `SSM parameter ${described(names, invalid)} does not exist in ${region}: create it as a SecureString (docs/deploying.md, "Secrets")`,
    );
  }
  for (const parameter of parameters) {
    // A parameter asked for by its ARN (one shared from another account) answers under its name.
    const asked = [parameter.Name, parameter.ARN].find((name): name is string => typeof name === "string" && names.has(name));
    const secret = asked === undefined ? undefined : names.get(asked);
    if (asked === undefined || !secret) continue;
    // A plain String is stored unencrypted and shown to whoever may describe parameters.
    if (parameter.Type !== "SecureString")
      throw new ConfigurationError(
        `SSM parameter ${described(names, [asked])} must be a SecureString, not ${typeof parameter.Type === "string" && /^\w{1,32}$/.test(parameter.Type) ? parameter.Type : "an unknown type"}`,
      );
    if (parameter.Value !== undefined && typeof parameter.Value !== "string")
      throw new ConfigurationError(`SSM parameter ${described(names, [asked])} came back with a value that is not a string`);
    if (values.has(secret)) throw new ConfigurationError(`SSM parameter ${described(names, [asked])} came back twice`);
    if (parameter.Value) values.set(secret, parameter.Value);
  }
  const missing = [...names].filter(([, secret]) => !values.has(secret)).map(([parameter]) => parameter);
  if (missing.length > 0) throw new ConfigurationError(`SSM parameter ${described(names, missing)} came back without a value`);
  return values;
}
