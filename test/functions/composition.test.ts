import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createApp, identifyingApp } from "../fixtures/blog/definition.ts";
import { app as fixture } from "../fixtures/blog/index.ts";
import { authFunction } from "../../lib/auth/auth-function.ts";
import { openIdProtocol } from "../../lib/auth/idp/oidc-protocol.ts";
import { v3HashVerifier } from "../../lib/auth/v3/hash-verifier.ts";
import type { MailTransport } from "../../lib/auth/mail/transport.ts";
import type { Application, ApplicationParts } from "../../lib/core/application.ts";
import { ConfigurationError } from "../../lib/core/config.ts";
import { isInvocationHandler } from "../../lib/core/invocation-handler.ts";
import { domainListing } from "../../lib/core/list.ts";
import { graphqlFunction } from "../../lib/graphql/function.ts";
import { restFunction, type RestFunctionParts } from "../../lib/rest/function.ts";
import { recordReadFunction } from "../../lib/rest/read-function.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { renderedValidators } from "../support/rendered-validators.ts";
import { call, httpEvent } from "../support/http-events.ts";
import { asServerlessOffline } from "../support/offline-env.ts";

// As functions/*.ts take schema-cache/validators.mjs: the fixture's, rendered.
const validators = await renderedValidators(fixture);

asServerlessOffline();

const ALICE = { "x-test-user": "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0001" };
const noSecrets = async () => new Map();
const memory = () => memoryStore;

/** The parts functions/rest.ts states, over a memory store; `built` keeps the application the call made. */
function restParts(built: { app?: Application } = {}): RestFunctionParts {
  return {
    app: (parts: ApplicationParts) => (built.app = createApp(parts)),
    secrets: noSecrets,
    store: memory,
    validators,
    listing: domainListing,
  };
}

const post = (slug: string) => ({ slug, title: `Post ${slug}`, content: "body", status: "published" });

describe("a function's one composition call", () => {
  it("builds the handler from the parts it states: a REST function that validates and lists", async () => {
    const built: { app?: Application } = {};
    const handler = await restFunction(restParts(built));
    expect((await call(handler, httpEvent("POST", "/posts", { body: { slug: "no title" }, headers: ALICE }))).statusCode).toBe(400);
    expect((await call(handler, httpEvent("POST", "/posts", { body: post("composed"), headers: ALICE }))).statusCode).toBe(200);
    const listed = await call(handler, httpEvent("PUT", "/posts", { body: {} }));
    expect(listed.statusCode).toBe(200);
    expect(JSON.stringify(listed.body)).toContain("composed");
    // Each part is the application's own: another application composed alike shares none of it.
    expect(built.app?.lists).toBe(true);
    const other: { app?: Application } = {};
    await restFunction(restParts(other));
    expect(other.app?.validation()).not.toBe(built.app?.validation());
  });

  it.each([
    ["listing", /the REST function is composed without the listing \(`listing: domainListing`\)/],
    ["validators", /the REST function is composed without the validators/],
    ["store", /the REST function is composed without a store/],
    ["secrets", /the REST function is composed without its secrets/],
  ] as const)("refuses to start without its %s, naming it, before any request", async (left, message) => {
    const parts: Partial<RestFunctionParts> = restParts();
    delete parts[left];
    // What the types refuse (below) a JavaScript caller or a cast can still do: the cold start refuses it too.
    const start = restFunction(parts as RestFunctionParts);
    await expect(start).rejects.toThrow(ConfigurationError);
    await expect(start).rejects.toThrow(message);
  });

  it("refuses to type-check a composition that leaves out a part its kind uses", () => {
    const { listing: _listing, ...withoutListing } = restParts();
    // @ts-expect-error -- a REST function lists: leaving the listing out is a type error.
    const refused = () => restFunction(withoutListing);
    // @ts-expect-error -- GraphQL validates input: leaving the validators out is a type error.
    const alsoRefused = () => graphqlFunction({ app: identifyingApp, secrets: noSecrets, store: memory, listing: domainListing });
    expect([typeof refused, typeof alsoRefused]).toEqual(["function", "function"]);
  });

  it("refuses an auth function without its OpenID client, mail transport or password verifiers, naming each", async () => {
    const mail = (): MailTransport => ({ send: async () => {} });
    const whole = { ...restParts(), mail, openIdClient: openIdProtocol, legacyPasswords: [v3HashVerifier] };
    await expect(authFunction(whole)).resolves.toBeTypeOf("function");
    const { openIdClient: _client, ...noClient } = whole;
    await expect(authFunction(noClient as typeof whole)).rejects.toThrow(
      /the auth function is composed without the OpenID client \(`openIdClient: openIdProtocol`\)/,
    );
    const { mail: _mail, legacyPasswords: _verifiers, ...neither } = whole;
    await expect(authFunction(neither as typeof whole)).rejects.toThrow(/without a mail transport \(`mail: sesTransport`\), the legacy password verifiers/);
  });

  it("composes a key-only function without the listing: its application says so by name if anything lists", async () => {
    const built: { app?: Application } = {};
    const handler = await recordReadFunction({ app: (parts) => (built.app = identifyingApp(parts)), store: memory });
    expect((await call(handler, httpEvent("GET", "/posts/missing", { routeKey: "GET /posts/{slug}" }))).statusCode).toBe(404);
    expect(built.app?.lists).toBe(false);
    expect(() => built.app?.listing()).toThrow(/composed without the listing/);
    expect(() => built.app?.validation()).toThrow(/composed without validators/);
  });

  it("makes every function in functions/ with invocationHandler, which opens and closes each invocation", async () => {
    const dir = fileURLToPath(new URL("../../functions/", import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files.length).toBeGreaterThanOrEqual(10);
    const made: Record<string, boolean> = {};
    for (const file of files) {
      const module = (await import(join(dir, file))) as { handler?: unknown };
      made[file] = isInvocationHandler(module.handler);
    }
    expect(made).toEqual(Object.fromEntries(files.map((f) => [f, true])));
    // A handler made another way is told apart.
    expect(isInvocationHandler(async () => ({}))).toBe(false);
  }, 60_000);
});
