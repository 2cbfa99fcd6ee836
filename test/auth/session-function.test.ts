import { describe, expect, it } from "vitest";
import { sessionRoutesServiceTypes } from "../fixtures/blog/definition.ts";
import { Application } from "../../lib/core/application.ts";
import { authFunctions } from "../../lib/auth/routes/serverless.ts";
import { sessionRoutes } from "../../lib/auth/routes/session-routes.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { dynamoRecordStore } from "../../lib/store/select-records.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";
import { inProcess } from "../support/parts.ts";

// functions/auth-session.ts serves the service's own routes with authDispatcher(app, sessionRoutes()),
// its providers built as their descriptions (app/definition.ts), without their mail, password and Idp
// code: for those routes it must answer exactly as the whole auth function does.
describe("the session routes' own function", () => {
  it("answers keys, providers, me, idents and refresh exactly as the whole auth function, then rotates and logs out", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const whole = client(t);
    // The same configuration and tables, built as the function builds it: a store that reads by key,
    // and no listing (functions/auth-session.ts is composed without it), which none of these routes needs.
    const described = new Application({ ...t.app.definition, serviceTypes: sessionRoutesServiceTypes() }, { ...inProcess, listing: undefined }).useStore(
      dynamoRecordStore(),
    );
    const session = client({ ...t, authHandler: httpHandler("auth", authDispatcher(described, sessionRoutes())) });
    const registered = await whole.request("POST", "/auth/email/register", { body: { email: newEmail(), password: PASSWORD, user: profile() } });
    expect(registered.status).toBe(200);
    const { access_token: access, refresh_token: refresh } = registered.body as { access_token: string; refresh_token: string };
    const bearer = { authorization: `Bearer ${access}` };
    const requests: [string, string, { body?: unknown; headers?: Record<string, string>; cookies?: boolean }][] = [
      ["GET", "/.well-known/jwks.json", {}],
      ["GET", "/auth/providers", {}],
      ["GET", "/auth/me", { headers: bearer, cookies: false }],
      ["GET", "/auth/me", { cookies: false }],
      ["GET", "/auth/idents", { headers: bearer, cookies: false }],
      ["GET", "/auth/idents", { cookies: false }],
      ["POST", "/auth/refresh", { body: { refresh_token: "x".repeat(43) }, cookies: false }],
      ["POST", "/auth/refresh", { body: {}, cookies: false }],
      // The router's answers (lib/http/router.ts): a parameter that is not percent-encoding, another method.
      ["DELETE", "/auth/idents/%E0%A4%A", { headers: bearer, cookies: false }],
      ["PUT", "/auth/me", { headers: bearer, cookies: false }],
    ];
    const statuses: number[] = [];
    for (const [method, path, options] of requests) {
      const [expected, actual] = [await whole.request(method, path, options), await session.request(method, path, options)];
      expect(actual).toEqual(expected);
      statuses.push(actual.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 401, 401, 400, 400, 405]);
    const rotated = await session.request("POST", "/auth/refresh", { body: { refresh_token: refresh }, cookies: false });
    expect(rotated).toMatchObject({ status: 200, body: { token_type: "Bearer", user: { username: "alice" } } });
    // The registration's cookie session, ended through the session function: the whole function sees it ended.
    for (const [name, value] of whole.jar) session.jar.set(name, value);
    expect((await whole.request("GET", "/auth/me", {})).body).toMatchObject({ username: "alice" });
    expect((await session.request("POST", "/auth/logout", {})).status).toBe(204);
    expect((await whole.request("GET", "/auth/me", {})).body).toBeNull();
  });

  it("is the handler of the session routes with per-route packaging, the whole auth function of the providers' routes", () => {
    const t = emailApp();
    const functions = authFunctions(t.app);
    const own = new Set(sessionRoutes().map((r) => r.id));
    for (const [id, fn] of Object.entries(functions)) expect(fn.handler).toBe(own.has(id) ? "functions/auth-session.handler" : "functions/auth.handler");
    expect(
      Object.keys(functions)
        .filter((id) => own.has(id))
        .sort(),
    ).toEqual([...own].sort());
    expect(Object.values(authFunctions(new Application({ ...t.app.definition, rest: { packaging: "single" } }, inProcess))).map((f) => f.handler)).toEqual([
      "functions/auth.handler",
    ]);
  });
});
