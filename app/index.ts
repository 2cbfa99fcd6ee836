import pkg from "../package.json" with { type: "json" };
import { Application, AuthenticationService, EmailPasswordProvider, GraphQLService, MailerService, type ApplicationDefinition, type ModelClass } from "../lib/index.ts";
import * as models from "./models/index.ts";
import { PublisherService } from "./services/publisher.ts";
import { TestBeanService } from "./services/testbean.ts";
import { VersionService } from "./services/version.ts";

const FRONT_END = "https://blog.example.com";

/** The sample blog: its models, the service types it may configure, and its configuration. */
export const definition: ApplicationDefinition = {
  name: "blog",
  version: pkg.version,
  models: Object.values(models) as ModelClass[],
  serviceTypes: [VersionService, PublisherService, TestBeanService, GraphQLService, AuthenticationService, EmailPasswordProvider, MailerService],
  services: {
    version: { type: "Version" },
    publisher: { type: "Publisher", prefix: "Published" },
    testbean: { type: "TestBean" },
    graphql: { type: "Framework/GraphQLService" },
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
      throttle: { resendDelay: 10, failedBeforeDelay: 3, delay: 1, lockout: { after: 5, duration: 900 } },
      // OWASP's floor unless `npm start` is told otherwise (PASSWORD_COST_LN); a Lambda runtime
      // refuses anything weaker, so this cannot lower a deployed stage's cost.
      ...(process.env.PASSWORD_COST_LN ? { password: { cost: { ln: Number(process.env.PASSWORD_COST_LN) } } } : {}),
    },
  },
};

export function createApp(overrides: Partial<ApplicationDefinition> = {}): Application {
  return new Application({ ...definition, ...overrides });
}

export const app = createApp();
