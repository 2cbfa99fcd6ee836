/**
 * The service's secrets. In a deployed stage each lives in SSM Parameter Store (a SecureString)
 * and a function's environment holds only the parameter's NAME (`<secret>_PARAMETER`, set by
 * packaging from the deploy parameter, for the functions that need it); the value is read once per
 * cold start (./load.ts). `npm start` and tests pass the values themselves in the environment.
 */
export const SECRETS = {
  APP_SECRET: { environment: "APP_SECRET_PARAMETER", deployParameter: "appSecretParameter" },
  AUTH_SIGNING_KEY: { environment: "AUTH_SIGNING_KEY_PARAMETER", deployParameter: "authSigningKeyParameter" },
  IDP_CLIENT_SECRET: { environment: "IDP_CLIENT_SECRET_PARAMETER", deployParameter: "idpClientSecretParameter" },
} as const;

export type SecretName = keyof typeof SECRETS;

export const SECRET_NAMES = Object.keys(SECRETS) as SecretName[];
