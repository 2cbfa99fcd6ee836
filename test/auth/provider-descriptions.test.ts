import { describe, expect, it } from "vitest";
import { identifyingServiceTypes, sessionRoutesServiceTypes } from "../fixtures/blog/definition.ts";
import { definition } from "../fixtures/blog/index.ts";
import { authenticationOf, EmailPasswordProvider } from "../../lib/auth/index.ts";
import { EmailPasswordProviderDescription } from "../../lib/auth/email/description.ts";
import { IdpProviderDescription } from "../../lib/auth/idp/description.ts";
import { IdpProvider } from "../../lib/auth/idp/provider.ts";
import { Application, type ApplicationDefinition } from "../../lib/core/application.ts";
import { inProcess } from "../support/parts.ts";

// functions/rest-read.ts and functions/auth-session.ts build the login providers as their
// descriptions (app/definition.ts): the same services, options and listing as the whole application, and
// the same configuration errors, without the flows.
const whole = (services: ApplicationDefinition["services"] = definition.services) => new Application({ ...definition, services }, inProcess);
const described = (services: ApplicationDefinition["services"] = definition.services) =>
  new Application({ ...definition, serviceTypes: sessionRoutesServiceTypes(), services }, inProcess);

describe("the login providers as their descriptions", () => {
  it("are the same services with the same complete options, and GET /auth/providers lists them alike", () => {
    const [full, light] = [whole(), described()];
    expect(light.services().map((e) => [e.name, e.service.options])).toEqual(full.services().map((e) => [e.name, e.service.options]));
    const listed = (app: Application) =>
      authenticationOf(app)
        ?.providers()
        .map((p) => p.describe());
    expect(listed(light)).toEqual(listed(full));
    expect(listed(light)?.map((d) => d.provider)).toEqual(["email", "idp"]);
    // The flows are the whole classes' only: a description has none to run.
    const email = light.service("email")?.service;
    expect(email).toBeInstanceOf(EmailPasswordProviderDescription);
    expect(email).not.toBeInstanceOf(EmailPasswordProvider);
    expect(whole().service("email")?.service).toBeInstanceOf(EmailPasswordProviderDescription);
    expect(light.service("idp")?.service).toBeInstanceOf(IdpProviderDescription);
    expect(light.service("idp")?.service).not.toBeInstanceOf(IdpProvider);
  });

  it("refuse the configurations the whole classes refuse, with the same messages", () => {
    const email = definition.services.email as Record<string, unknown> & { type: string };
    const idp = definition.services.idp as Record<string, unknown> & { type: string };
    const bad: ApplicationDefinition["services"][] = [
      { ...definition.services, email: { ...email, redirects: { failure: "https://x.test/f" } } },
      { ...definition.services, email: { ...email, verification: "sometimes" } },
      { ...definition.services, idp: { ...idp, redirects: { success: "https://x.test/ok" } } },
      { ...definition.services, idp: { ...idp, exposeScope: true } },
      { ...definition.services, idp: { ...idp, scope: "email profile" } },
      { ...definition.services, idp: { ...idp, issuer: "accounts.example" } },
    ];
    for (const services of bad) {
      const message = (build: () => Application): string => {
        try {
          build();
        } catch (error) {
          return (error as Error).message;
        }
        return "started";
      };
      const expected = message(() => whole(services));
      expect(expected).toMatch(/^Invalid application configuration:\n {2}service '(email|idp)' \(Framework\/(EmailPasswordProvider|IdpProvider)\): /);
      expect(message(() => described(services))).toBe(expected);
    }
  });
});

describe("the functions' service type lists (app/definition.ts)", () => {
  it.each([
    ["identifying functions", identifyingServiceTypes],
    ["session routes", sessionRoutesServiceTypes],
  ])("%s build every configured service with the whole definition's options, so a type listed once reaches every function", (_name, types) => {
    const [full, light] = [whole(), new Application({ ...definition, serviceTypes: types() }, inProcess)];
    expect(light.services().map((e) => [e.name, e.service.options])).toEqual(full.services().map((e) => [e.name, e.service.options]));
    // Every type the whole definition names is in the list, or is a whole class whose description stands in for it.
    const names = (list: readonly { type: string }[]) => list.map((t) => t.type).sort();
    expect(names(types())).toEqual(names(definition.serviceTypes));
  });
});
