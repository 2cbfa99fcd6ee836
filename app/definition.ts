import pkg from "../package.json" with { type: "json" };
import {
  AccessAuthentication,
  Application,
  AuthenticationService,
  EmailPasswordProvider,
  EmailPasswordProviderDescription,
  GraphQLService,
  IdpProvider,
  IdpProviderDescription,
  MailerService,
  type ApplicationDefinition,
  type ApplicationParts,
  type ModelClass,
  type ServiceClass,
} from "../lib/index.ts";
import { auditSignIns } from "./audit.ts";
import { GRAPHIQL_DOCUMENT } from "./graphiql.ts";
import * as models from "./models/index.ts";
import { PublisherService } from "./services/publisher.ts";
import { TestBeanService } from "./services/testbean.ts";
import { VersionService } from "./services/version.ts";

const FRONT_END = "https://blog.example.com";

/**
 * Where the sample's users land after signing in with the Idp: the API itself here (GET /auth/me
 * shows who is logged in); a real application names its front end. serverless.yml fills the Idp
 * settings from deploy parameters; `npm start` points them at the local development provider.
 */
const setting = (name: string): string | undefined => {
  const value = process.env[name];
  // serverless offline passes an unset `${param:x, null}` as the string "null".
  return value && value !== "null" ? value : undefined;
};
const appUrl = setting("APP_URL") ?? "http://127.0.0.1:3000";
const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/** The sample blog: its models and its configuration; the service types it may name are below. */
const configuration: Omit<ApplicationDefinition, "serviceTypes"> = {
  // The project's name, in one place (package.json `webda.project`): serverless.yml's service, the
  // tables' prefix, the start banner and the mail subjects all say it.
  name: pkg.webda.project,
  version: pkg.version,
  // In name order whatever the loader: a module namespace is sorted, a transpiled one may not be.
  models: (Object.values(models) as ModelClass[]).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  services: {
    version: { type: "Version" },
    publisher: { type: "Publisher", prefix: "Published" },
    testbean: { type: "TestBean" },
    graphql: { type: "Framework/GraphQLService", graphiqlDocument: GRAPHIQL_DOCUMENT },
    authentication: { type: "Framework/Authentication" },
    // SES in AWS (a verified sender), the .data/outbox/ folder under `npm start`.
    mailer: { type: "Framework/Mailer", from: "no-reply@blog.example.com" },
    email: {
      type: "Framework/EmailPasswordProvider",
      // The sample has no front end: these pages stand for the application's own.
      redirects: {
        failure: `${FRONT_END}/auth/failure`,
        verified: `${FRONT_END}/auth/verified`,
        register: `${FRONT_END}/auth/register`,
        recover: `${FRONT_END}/auth/recover`,
        confirm: `${FRONT_END}/auth/confirm`,
      },
      throttle: {
        resendDelay: 10,
        failedBeforeDelay: 3,
        delay: 1,
        lockout: { after: 5, duration: 900 },
        // One source's share of the mail budget (docs/authentication.md): a deploy parameter, or the
        // environment of `npm start`, where every request comes from 127.0.0.1; unset keeps the default.
        ...(setting("MAILS_PER_SOURCE_PER_MINUTE") ? { mailsPerSourcePerMinute: Number(setting("MAILS_PER_SOURCE_PER_MINUTE")) } : {}),
      },
      // OWASP's floor unless `npm start` is told otherwise (PASSWORD_COST_LN); a Lambda runtime
      // refuses anything weaker, so this cannot lower a deployed stage's cost.
      ...(process.env.PASSWORD_COST_LN ? { password: { cost: { ln: Number(process.env.PASSWORD_COST_LN) } } } : {}),
    },
    // Sign-in with an OpenID Connect provider: the local development provider under `npm start`,
    // a real issuer in a deployed stage (README, "Sign-in with an OpenID Connect provider").
    idp: {
      type: "Framework/IdpProvider",
      issuer: setting("IDP_ISSUER") ?? "http://127.0.0.1:3003",
      clientId: setting("IDP_CLIENT_ID") ?? "local-dev",
      authorized_uris: [`${appUrl}/auth/me`],
      redirects: { success: `${appUrl}/auth/me`, failure: `${appUrl}/auth/me` },
      ...(setting("IDP_HOSTED_DOMAIN") ? { hostedDomain: setting("IDP_HOSTED_DOMAIN") } : {}),
      ...(list(setting("IDP_ALLOWED_EMAIL_DOMAINS")).length > 0 ? { allowedEmailDomains: list(setting("IDP_ALLOWED_EMAIL_DOMAINS")) } : {}),
    },
  },
};

/**
 * The sample blog: its models, every service type it may configure, and its configuration. Marked
 * pure (esbuild drops it where unused) so that a function building the application from its own
 * service types (identifyingServiceTypes below) does not bundle every type named here.
 */
export const definition: ApplicationDefinition = /* @__PURE__ */ Object.assign({ serviceTypes: /* @__PURE__ */ everyServiceType() }, configuration);

/**
 * The application with its audit listener and every service type, from the parts its composition
 * gives (functions/auth.ts and functions/rest.ts build theirs with this, once per cold start).
 */
export function createApp(parts: ApplicationParts = {}, overrides: Partial<ApplicationDefinition> = {}): Application {
  return buildApp(definition.serviceTypes, parts, overrides);
}

/**
 * The sample's own service types and GraphQL's, which every function builds alike: list a new
 * service type here (once), and every function and the checked definition above know it.
 */
function ownServiceTypes(): ServiceClass[] {
  return [VersionService, PublisherService, TestBeanService, GraphQLService];
}

/** Every service type the sample may configure: its own, and the authentication service's whole classes. */
function everyServiceType(): ServiceClass[] {
  return [...ownServiceTypes(), AuthenticationService, EmailPasswordProvider, MailerService, IdpProvider];
}

/**
 * The configured services less those a deployed stage leaves out: the operations plugin lists the
 * test services (TestBean) in DISABLED_SERVICES unless `--param testRoutes=true`, so that no
 * function serves them, the REST catch-all and GraphQL included. `npm start` and the CLI keep all.
 */
function enabledServices(): ApplicationDefinition["services"] {
  const off = new Set(list(setting("DISABLED_SERVICES")));
  if (off.size === 0) return configuration.services;
  return Object.fromEntries(Object.entries(configuration.services).filter(([name]) => !off.has(name)));
}

/** The application with its audit listener, from the given service types and parts. */
export function buildApp(serviceTypes: ServiceClass[], parts: ApplicationParts = {}, overrides: Partial<ApplicationDefinition> = {}): Application {
  const application = new Application({ ...configuration, services: enabledServices(), serviceTypes, ...overrides }, parts);
  auditSignIns(application);
  return application;
}

/**
 * The service types of the session routes' function (functions/auth-session.ts), which runs none of
 * the login providers' flows: the providers as their descriptions (type, checked options, what
 * `GET /auth/providers` lists), so their flows, mail templates and protocol code are not bundled
 * there. Every configured service exists in every function alike.
 */
export function sessionRoutesServiceTypes(): ServiceClass[] {
  return [...ownServiceTypes(), AuthenticationService, EmailPasswordProviderDescription, MailerService, IdpProviderDescription];
}

/**
 * The functions that tell who is asking but issue no credential and run no login flow (the record
 * read, GraphQL, WebSocket, stream and GraphiQL functions): the providers as their descriptions, and
 * the authentication service as AccessAuthentication (no refresh rotation, idents or token signing
 * in those bundles).
 */
export function identifyingServiceTypes(): ServiceClass[] {
  return [...ownServiceTypes(), AccessAuthentication, EmailPasswordProviderDescription, MailerService, IdpProviderDescription];
}

/** The application of the session routes' function (functions/auth-session.ts). */
export function sessionRoutesApp(parts: ApplicationParts): Application {
  return buildApp(sessionRoutesServiceTypes(), parts);
}

/** The application of a function that tells who is asking and issues nothing (record read, GraphQL, WebSocket, stream, GraphiQL). */
export function identifyingApp(parts: ApplicationParts): Application {
  return buildApp(identifyingServiceTypes(), parts);
}
