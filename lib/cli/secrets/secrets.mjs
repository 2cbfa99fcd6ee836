// @ts-check
// What packaging does with the service's secrets (docs/deploying.md, "Secrets"): in a deployed
// stage they live in SSM Parameter Store and a function is given only the NAME of each parameter
// it reads, with the right to read that parameter alone; the values never enter packaging.
// Plain JS because the Serverless CLI loads plugins itself. The same table as
// lib/core/secrets/names.ts, where the functions read them.
/** @import { Serverless } from "../../core/serverless-host.ts" */

/** @typedef {"APP_SECRET" | "AUTH_SIGNING_KEY" | "IDP_CLIENT_SECRET"} SecretName */

/**
 * Secret, the environment variable naming its parameter, the deploy parameter giving that name, and the old value parameter.
 * @type {readonly { name: SecretName, environment: string, parameter: string, oldValueParam: string }[]}
 */
export const SECRETS = [
  { name: "APP_SECRET", environment: "APP_SECRET_PARAMETER", parameter: "appSecretParameter", oldValueParam: "appSecret" },
  { name: "AUTH_SIGNING_KEY", environment: "AUTH_SIGNING_KEY_PARAMETER", parameter: "authSigningKeyParameter", oldValueParam: "authSigningKey" },
  { name: "IDP_CLIENT_SECRET", environment: "IDP_CLIENT_SECRET_PARAMETER", parameter: "idpClientSecretParameter", oldValueParam: "idpClientSecret" },
];

/** `npm start` (stage local, under serverless offline) passes values in the environment; every other stage is deployed. */
export function isDeployedStage(/** @type {Serverless} */ serverless) {
  return serverless.service.provider.stage !== "local" && process.env.IS_OFFLINE !== "true";
}

/**
 * serverless.yml `custom.secrets`: the parameter names (`parameters`), who reads what (`readers`), an optional KMS key.
 * @param {Serverless} serverless
 * @returns {{ parameters: Record<SecretName, string | undefined>, readers: Record<string, unknown>, kmsKeyArn: string | undefined }}
 */
export function secretsConfig(serverless) {
  const config = serverless.service.custom?.secrets ?? {};
  const given = (/** @type {unknown} */ value) => (value === undefined || value === null || value === "" || value === "null" ? undefined : String(value));
  return {
    parameters: /** @type {Record<SecretName, string | undefined>} */ (Object.fromEntries(SECRETS.map(({ name }) => [name, given(config.parameters?.[name])]))),
    readers: config.readers ?? {},
    kmsKeyArn: given(config.kmsKeyArn),
  };
}

/**
 * Whether a deploy parameter was given: on the command line or under serverless.yml `params`.
 * @param {Serverless} serverless
 * @param {string} name
 */
export function paramGiven(serverless, name) {
  const cli = [serverless.processedInput?.options?.param ?? []].flat().some((item) => String(item).split("=")[0] === name);
  const params = serverless.configurationInput?.params ?? {};
  const stage = serverless.service.provider.stage;
  return cli || [params[stage], params.default].some((set) => set?.[name] !== undefined && set?.[name] !== null);
}

/**
 * A secret VALUE given the old way (`--param appSecret=...`) would land in the template and every
 * function's configuration: refused in a deployed stage, naming the parameter that replaces it.
 * @param {Serverless} serverless
 * @param {readonly string[]} names
 */
export function refuseValueParams(serverless, names = SECRETS.map((s) => s.name)) {
  const stage = serverless.service.provider.stage;
  const given = SECRETS.filter((s) => names.includes(s.name) && paramGiven(serverless, s.oldValueParam));
  if (given.length === 0) return;
  const lines = given.map((s) => `  --param ${s.oldValueParam}=...  ->  store it as an SSM SecureString and pass --param ${s.parameter}=<parameter name>`);
  throw new serverless.classes.Error(
    `Stage '${stage}' takes its secrets from SSM Parameter Store, never as values (they would sit in the template and every function's configuration):\n${lines.join("\n")}\n(docs/deploying.md, "Secrets")`,
  );
}

/**
 * The SSM parameter's ARN: a name with a leading slash is the path after `parameter`.
 * @param {string} name
 * @returns {string | { "Fn::Sub": string }}
 */
export function parameterArn(name) {
  if (name.startsWith("arn:")) return name;
  const path = name.startsWith("/") ? name : `/${name}`;
  return { "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${path}` };
}
