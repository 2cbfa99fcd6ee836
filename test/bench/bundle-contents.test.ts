import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { bundle } from "../../bench/build/bundle.ts";
import { coldEnv } from "../../bench/cold/spawn.ts";

const out = await mkdtemp(join(tmpdir(), "bundle-contents-"));
afterAll(() => rm(out, { recursive: true, force: true }));

/** Project files that put code in the bundle (an input whose exports all went unused adds 0 bytes). */
async function projectInputs(entry: string): Promise<string[]> {
  const built = await bundle(entry, out);
  return built.inputs.filter((i) => i.bytes > 0 && !i.path.includes("node_modules/")).map((i) => i.path);
}

// The login providers' flows run only in functions/auth.ts; every other function builds the
// providers as their descriptions (app/definition.ts), so none of this is in their bundles.
const FLOWS = [
  "lib/auth/email/provider.ts",
  "lib/auth/email/passwords.ts",
  "lib/auth/email/throttle.ts",
  "lib/auth/email/tokens.ts",
  "lib/auth/mail/templates.ts",
  "lib/auth/idp/provider.ts",
  "lib/auth/idp/browser-flow.ts",
  "lib/auth/idp/token-login.ts",
  "lib/auth/idp/id-token.ts",
  "lib/auth/idp/state-cookie.ts",
];

// Functions that tell who is asking and issue nothing (app/definition.ts, identifyingServiceTypes).
const IDENTIFYING = ["functions/rest-read.ts", "functions/graphql.ts", "functions/ws.ts", "functions/stream.ts", "functions/graphiql.ts"];

describe("what a function's bundle carries", () => {
  it.each([...IDENTIFYING, "functions/auth-session.ts"])(
    "%s carries none of the login providers' flows",
    async (entry) => {
      const inputs = await projectInputs(entry);
      expect(inputs.filter((path) => FLOWS.includes(path))).toEqual([]);
      // Their descriptions are there: GET /auth/providers lists them, and every function builds every service.
      expect(inputs).toEqual(expect.arrayContaining(["lib/auth/email/description.ts", "lib/auth/idp/description.ts"]));
    },
    120_000,
  );

  it.each(IDENTIFYING)(
    "%s carries no code that issues credentials: it only tells who is asking",
    async (entry) => {
      const inputs = await projectInputs(entry);
      const issuing = [
        "lib/auth/service.ts",
        "lib/auth/refresh.ts",
        "lib/auth/idents.ts",
        "lib/auth/ident-tokens.ts",
        "lib/auth/link.ts",
        "lib/auth/users.ts",
        "lib/auth/access-token.ts",
      ];
      expect(inputs.filter((path) => issuing.includes(path))).toEqual([]);
      expect(inputs).toEqual(expect.arrayContaining(["lib/auth/access.ts", "lib/auth/sessions.ts", "lib/auth/access-token-verify.ts"]));
    },
    120_000,
  );

  // Access tokens are verified on node:crypto (lib/auth/access-token-verify.ts) and the keys load
  // without jose (lib/auth/keys.ts): jose only signs them, in the functions that issue them.
  const joseInputs = async (entry: string) =>
    (await bundle(entry, out)).inputs.filter((i) => i.bytes > 0 && i.path.includes("node_modules/jose/")).map((i) => i.path);
  it.each(IDENTIFYING)(
    "%s carries no jose",
    async (entry) => {
      expect(await joseInputs(entry)).toEqual([]);
    },
    120_000,
  );

  it("functions/auth-session.ts carries jose's JWT signing (it issues access tokens on refresh)", async () => {
    expect(await joseInputs("functions/auth-session.ts")).toEqual(expect.arrayContaining([expect.stringMatching(/node_modules\/jose\/.*\/jwt\/sign\.js$/)]));
  }, 120_000);

  // The record read and the session routes list nothing: their store reads by key
  // (lib/store/select-records.ts) and they are composed without the listing, so the query language,
  // its planner and the listing are not bundled.
  it.each(["functions/rest-read.ts", "functions/auth-session.ts"])(
    "%s carries no listing: no query parser, planner or checks",
    async (entry) => {
      const inputs = await projectInputs(entry);
      const listing = [
        "lib/core/list.ts",
        "lib/core/scoped-query.ts",
        "lib/store/dynamodb.ts",
        "lib/store/dynamodb-batch-reads.ts",
        "lib/store/dynamodb-pages.ts",
        "lib/query/parser.ts",
        "lib/query/lexer.ts",
        "lib/query/plan.ts",
        "lib/query/plan-keys.ts",
        "lib/query/plan-filter.ts",
        "lib/query/check.ts",
        "lib/query/print.ts",
      ];
      expect(inputs.filter((path) => listing.includes(path))).toEqual([]);
      // Composed without the listing (functions/*.ts): the composition is there, the Listing a type only.
      expect(inputs).toEqual(expect.arrayContaining(["lib/store/dynamodb-records.ts", "lib/core/compose.ts"]));
    },
    120_000,
  );

  // Idents' provider tokens are sealed with node:crypto (lib/auth/ident-tokens.ts): the session
  // routes seal them (v3 upgrades) without jose's JWE code, which functions/auth.ts still carries
  // for the Idp's state cookie.
  it("functions/auth-session.ts carries none of jose's JWE code; functions/auth.ts does", async () => {
    const jwe = async (entry: string) =>
      (await bundle(entry, out)).inputs
        .filter((i) => i.bytes > 0 && /node_modules\/jose\/.*\/(jwe_encrypt|jwe_decrypt|content_encryption)\.js$/.test(i.path))
        .map((i) => i.path);
    expect(await jwe("functions/auth-session.ts")).toEqual([]);
    expect(await jwe("functions/auth.ts")).toHaveLength(3);
  }, 120_000);

  // The functions that list choose their store from lib/store/select.ts and are composed with the listing.
  it.each(["functions/rest.ts", "functions/graphql.ts", "functions/ws.ts", "functions/stream.ts"])(
    "%s lists: its bundle carries the listing",
    async (entry) => {
      expect(await projectInputs(entry)).toEqual(
        expect.arrayContaining(["lib/store/select.ts", "lib/core/list.ts", "lib/store/dynamodb.ts", "lib/query/plan.ts", "lib/query/parser.ts"]),
      );
    },
    120_000,
  );

  it("functions/auth.ts carries them (it serves the providers' routes)", async () => {
    expect(await projectInputs("functions/auth.ts")).toEqual(expect.arrayContaining(FLOWS));
  }, 120_000);
});

describe("what a function loads of Node at its cold start", () => {
  // An ES import of node:http builds its facade, whose WebSocket/CloseEvent/MessageEvent getters
  // load Node's undici (lib/cli/bundle/node-http.cjs): serverless.yml's alias gives the bundles
  // node:http without it, the AWS SDK's imports of it included.
  it.each(["functions/rest-read.ts", "functions/graphql.ts"])(
    "%s imports without loading Node's undici",
    async (entry) => {
      const built = await bundle(entry, out);
      const probe = `await import(${JSON.stringify(pathToFileURL(built.file).href)});
console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes("undici"))));`;
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe], {
        env: coldEnv("http://127.0.0.1:9"),
      });
      expect(JSON.parse(stdout.trim().split("\n").pop() ?? "null")).toEqual([]);
    },
    120_000,
  );
});
