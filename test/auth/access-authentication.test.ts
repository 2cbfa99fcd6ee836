import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { identifyingServiceTypes } from "../fixtures/blog/definition.ts";
import { AccessAuthentication } from "../../lib/auth/access.ts";
import { authenticationOf } from "../../lib/auth/service.ts";
import { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { readHandler } from "../../lib/rest/read-handler.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";
import { inProcess } from "../support/parts.ts";

// functions/rest-read.ts builds the authentication service as AccessAuthentication (app/definition.ts):
// for the same credentials it must tell the same caller as the whole service, so a record read
// answers exactly as it does in an application built whole.
describe("a record read's authentication (AccessAuthentication)", () => {
  it("tells the same caller as the whole service for bearer tokens, cookies and ended sessions", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const light = new Application({ ...t.app.definition, serviceTypes: identifyingServiceTypes() }, inProcess).useStore(dynamoStore());
    expect(authenticationOf(light)).toBeUndefined();
    expect(light.service("authentication")?.service).toBeInstanceOf(AccessAuthentication);
    const whole = client({ ...t, rest: readHandler(t.app) });
    const read = client({ ...t, rest: readHandler(light) });
    const registered = await whole.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile() } });
    expect(registered.status).toBe(200);
    const { access_token: access, user } = registered.body as { access_token: string; user: { uuid: string } };
    for (const [name, value] of whole.jar) read.jar.set(name, value);
    const path = `/users/${user.uuid}`;
    const cases: { headers?: Record<string, string>; cookies?: boolean }[] = [
      { headers: { authorization: `Bearer ${access}` }, cookies: false },
      { cookies: true },
      { cookies: false },
      { headers: { authorization: `Bearer ${access.slice(0, -2)}xx` }, cookies: true },
      { headers: { authorization: "Basic abc" }, cookies: false },
    ];
    const answers = async () => {
      const bodies: unknown[] = [];
      for (const options of cases) {
        const [expected, actual] = [await whole.request("GET", path, options), await read.request("GET", path, options)];
        expect(actual).toEqual(expected);
        bodies.push(actual.body);
      }
      return bodies;
    };
    // The owner sees the email (bearer, cookie); anonymous and a failed bearer do not.
    const before = await answers();
    expect(before.map((b) => "email" in (b as object))).toEqual([true, true, false, false, false]);
    // After logout the cookie is dead and the access token (verified without a lookup) lives until it expires.
    const ended = [...whole.jar];
    expect(ended.length).toBeGreaterThan(0);
    expect((await whole.request("POST", "/auth/logout", {})).status).toBe(204);
    for (const [name, value] of ended) for (const jar of [whole.jar, read.jar]) jar.set(name, value);
    const after = await answers();
    expect(after.map((b) => "email" in (b as object))).toEqual([true, false, false, false, false]);
  });
});

describe("v3 user rows before any credential is checked", () => {
  it("read mapped from the first request of an instance (an anonymous read included), light or whole", async () => {
    for (const serviceTypes of [identifyingServiceTypes(), undefined]) {
      const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
      const app = new Application({ ...t.app.definition, ...(serviceTypes ? { serviceTypes } : {}) }, inProcess).useStore(memoryStore);
      const users = app.repository(app.model("User") as ModelInfo);
      const uuid = randomUUID();
      // As lib/auth/v3 finds it: the v3 hash under `__password`, nothing under `password`.
      await users.create({ uuid, email: `${uuid}@example.com`, username: `v3${uuid.slice(0, 6)}`, name: "Vee", __password: "$2a$04$v3hash" });
      const loaded = await users.get({ uuid });
      expect(loaded?.__password).toBeUndefined();
      expect(loaded?.password).toMatchObject({ __hash: "$2a$04$v3hash" });
    }
  });
});
