import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundle } from "../../bench/build/bundle.ts";

const out = await mkdtemp(join(tmpdir(), "yoga-fair-"));
afterAll(() => rm(out, { recursive: true, force: true }));

/** Project files that put code in a bundle. */
async function projectInputs(entry: string): Promise<Set<string>> {
  const built = await bundle(entry, join(out, entry.replace(/\W+/g, "_")));
  return new Set(built.inputs.filter((i) => i.bytes > 0 && !i.path.includes("node_modules/")).map((i) => i.path));
}

/** The application: its definition, services, models, store choice and validators. */
const APPLICATION = ["app/", "schema-cache/", "lib/core/", "lib/store/", "lib/auth/", "lib/models/", "lib/rest/", "lib/realtime/"];
/** How our function serves GraphQL over HTTP, which yoga replaces with its own. */
const OUR_SERVING = [
  "functions/graphql.ts",
  "lib/graphql/",
  "lib/http/",
  "lib/auth/errors.ts",
  // The metric line our HTTP handler writes per invocation (the invocation's close): yoga's adapter writes none.
  "lib/core/emf.ts",
  // What opens and closes each invocation (ids, deadline, the request line): our handler's, as emf.ts.
  "lib/core/invocation-handler.ts",
  "lib/core/invocation-lifecycle.ts",
  // What its cold-start line reports of the compile cache: invocationHandler's, as above.
  "lib/core/compile-cache.ts",
  // The traced invocation's export, which invocationHandler awaits as it ends (lib/core/tracing.ts): yoga ends no invocation.
  "lib/core/tracing/export.ts",
  "lib/core/tracing/otlp.ts",
  // The spans a function's traces record, made only through the function invocationHandler built
  // (its FunctionTraces): yoga's SDK calls find no traced invocation to make one under.
  "lib/core/tracing/span.ts",
];

describe("the yoga peer is built as our GraphQL function is (bench/fixtures/yoga.ts, functions/graphql.ts)", () => {
  it("bundles the same application modules; they differ only in the GraphQL-over-HTTP layer", async () => {
    const [ours, yoga] = await Promise.all([projectInputs("functions/graphql.ts"), projectInputs("bench/fixtures/yoga.ts")]);
    const application = (set: Set<string>) =>
      [...set].filter((p) => APPLICATION.some((a) => p.startsWith(a)) && !OUR_SERVING.some((s) => p.startsWith(s))).sort();
    expect(application(yoga)).toEqual(application(ours));
    // Every module only one side has is that side's serving layer, nothing of the application.
    expect([...ours].filter((p) => !yoga.has(p) && !OUR_SERVING.some((s) => p.startsWith(s)))).toEqual([]);
    expect([...yoga].filter((p) => !ours.has(p) && !p.startsWith("bench/fixtures/yoga"))).toEqual([]);
    // Both choose the store the same way, from the environment.
    expect(ours.has("lib/store/select.ts") && yoga.has("lib/store/select.ts")).toBe(true);
  }, 120_000);
});
