import { AuthenticationService, EmailPasswordProvider, IdpProvider, MailerService, type Application, type ApplicationDefinition } from "../lib/index.ts";
import { blog, buildApp, ownServiceTypes } from "./blog.ts";

/** The sample blog: its models, every service type it may configure, and its configuration (./blog.ts). */
export const definition: ApplicationDefinition = {
  ...blog,
  serviceTypes: [...ownServiceTypes(), AuthenticationService, EmailPasswordProvider, MailerService, IdpProvider],
};

/** The application with its audit listener; functions/ build theirs with this, once per cold start. */
export function createApp(overrides: Partial<ApplicationDefinition> = {}): Application {
  return buildApp(definition.serviceTypes, overrides);
}
