import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningJwk, publicKeySet } from "../../lib/auth/index.ts";
import { app } from "../../app/index.ts";
import { generateApp, generatedName } from "../support/generated-app.ts";
import { documentedRow, stackGrowth } from "../support/stack-figures.ts";
import { grantsOf, kindViolations, overlyBroad, statementsOf } from "../support/iam.ts";
import { specErrors } from "../support/cfn-validation.ts";
import { allResources, loadStacks, unresolved, type Stack, type Template } from "../support/stacks.ts";
import { rewriteReferences } from "../../lib/cli/stacks/references.mjs";
import { INLINE_LIMIT, MANAGED_LIMIT, policySize } from "../../lib/cli/stacks/role-policies.mjs";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const MODELS = 30;
/** The default `custom.nestedStacks.limit`: every stack stays under it, with room to spare for hand-written resources. */
const LIMIT = 450;

interface Packaged {
  dir: string;
  stacks: Stack[];
  routeKeys: string[];
  /** The functions `npm run build` rendered for the derived routes (schema-cache/functions.json). */
  restFunctions: number;
}

/**
 * The sample plus 30 generated models (keys, relations, two operations and two indexes each),
 * packaged for a deployed stage as `serverless package` packages the sample: nothing but
 * rest.packaging set, and that only for the grouped variants.
 */
async function packageLarge(packaging: "route" | "model" | "single"): Promise<Packaged> {
  const dir = await generateApp(root, MODELS, packaging === "route" ? {} : { packaging });
  const out = join(dir, ".package");
  const started = performance.now();
  await run(
    join(dir, "node_modules/.bin/serverless"),
    [
      "package",
      "--stage",
      "ci",
      "--package",
      out,
      // The secrets as a deployed stage names them (SSM parameters) and the signing key's public set.
      "--param",
      "appSecretParameter=/blog/ci/app-secret",
      "--param",
      "authSigningKeyParameter=/blog/ci/auth-signing-key",
      "--param",
      "idpClientSecretParameter=/blog/ci/idp-client-secret",
      "--param",
      `authPublicKeys=${JSON.stringify(publicKeySet(JSON.stringify(generateSigningJwk())))}`,
      "--param",
      "idpIssuer=https://accounts.example.com",
      "--param",
      "idpClientId=ci-client",
      "--param",
      "publicUrl=https://api.example.com",
      "--param",
      "alarmEmail=ops@example.com",
      "--param",
      "testRoutes=true",
    ],
    { cwd: dir, env: { ...process.env, ALLOW_TEST_USER: "false" }, maxBuffer: 64 * 1024 * 1024 },
  );
  // Reported, never asserted (wall-clock time depends on the machine).
  console.log(`serverless package of the sample + ${MODELS} models (rest.packaging ${packaging}): ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const routes = JSON.parse(await readFile(join(dir, "schema-cache/routes.json"), "utf8")) as { key: string }[];
  const functions = JSON.parse(await readFile(join(dir, "schema-cache/functions.json"), "utf8")) as Record<string, unknown>;
  return { dir, stacks: await loadStacks(out), routeKeys: routes.map((r) => r.key), restFunctions: Object.keys(functions).length };
}

/** A nested stack's template with its parameters replaced by what the root passes, beside the root's resources. */
function asRootSees(stack: Stack, rootStack: Stack): Template {
  if (stack.id === "root") return stack.template;
  const passed = (rootStack.template.Resources[stack.id]?.Properties.Parameters ?? {}) as Record<string, object>;
  const resolved = rewriteReferences(stack.template.Resources, (reference) =>
    reference.kind === "ref" ? passed[reference.target] : undefined,
  ) as Template["Resources"];
  return { Resources: { ...rootStack.template.Resources, ...resolved } };
}

describe.each(["route", "model", "single"] as const)(`an application of ${MODELS} more models, rest.packaging %s`, (packaging) => {
  let stacks: Stack[];
  let routeKeys: string[];
  let restFunctions: number;
  let dir: string | undefined;
  beforeAll(async () => {
    ({ dir, stacks, routeKeys, restFunctions } = await packageLarge(packaging));
  }, 900_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`packages into stacks of fewer than ${LIMIT} resources each, nested by route group when one would not do`, () => {
    const counts = stacks.map((s) => Object.keys(s.template.Resources).length);
    console.log(
      `rest.packaging ${packaging}: ${stacks.length} stacks, ${counts.reduce((a, b) => a + b, 0)} resources (root ${counts[0]}${counts.length > 1 ? `, largest nested ${Math.max(...counts.slice(1))}` : ""})`,
    );
    for (const count of counts) expect(count).toBeLessThan(LIMIT);
    // Past the limit, the alarms on the root's tables, API and metrics have a stack of their own.
    if (stacks.length > 1) expect(stacks.map((s) => s.id)).toContain("CloudwatchAlarmsNestedStack");
    if (packaging === "single") return;
    // Each generated model's routes are a nested stack of their own.
    for (let i = 1; i <= MODELS; i++) expect(stacks.map((s) => s.id)).toContain(`${generatedName(i)}sNestedStack`);
  });

  it("packages to the figures docs/deploying.md gives, and holds as many models as it says", async () => {
    const page = await readFile(join(root, "docs/deploying.md"), "utf8");
    const counts = stacks.map((s) => Object.keys(s.template.Resources).length);
    const measured = [String(stacks.length), String(counts.reduce((a, b) => a + b, 0)), String(counts[0])];
    expect(documentedRow(page, `the sample and ${MODELS} models, ${packaging} packaging`)).toEqual(measured);
    if (packaging !== "route") return;
    const growth = stackGrowth(
      stacks,
      Array.from({ length: MODELS }, (_, i) => generatedName(i + 1)),
    );
    const first = growth.reduce((a, b) => (b.fit < a.fit ? b : a));
    console.log(
      `headroom: ${growth
        .filter((g) => g.perModel > 0)
        .map((g) => `${g.stack} ${g.resources} (+${g.perModel.toFixed(2)}/model, fits ${g.fit})`)
        .join("; ")}`,
    );
    expect(documentedRow(page, "models of the generated kind the shared stacks hold, the sample's besides")).toEqual([
      String(first.fit),
      `\`${first.stack}\``,
      first.perModel.toFixed(2),
    ]);
  });

  it("validates every template, root and nested, against AWS's resource specification", async () => {
    expect(await specErrors(join(dir as string, ".package"))).toEqual([]);
  });

  it("resolves every Ref, GetAtt, Sub variable and DependsOn inside its own stack", () => {
    expect(unresolved(stacks)).toEqual([]);
  });

  it("serves every derived route, the catch-all included, from the functions the build rendered", () => {
    const resources = allResources(stacks);
    // HTTP API routes (the WebSocket API has a `$default` of its own); a nested stack names the API by the root's parameter of the same name.
    const keys = resources
      .filter((r) => r.Type === "AWS::ApiGatewayV2::Route" && JSON.stringify(r.Properties.ApiId) === '{"Ref":"HttpApi"}')
      .map((r) => r.Properties.RouteKey as string);
    for (const key of routeKeys) expect(keys).toContain(key);
    expect(keys).toContain("$default");
    expect(keys.filter((k) => k === "$default")).toHaveLength(1);
    const handlers = resources.filter((r) => r.Type === "AWS::Lambda::Function").map((r) => r.Properties.Handler as string);
    expect(handlers.filter((h) => h.startsWith("functions/rest"))).toHaveLength(restFunctions);
    if (packaging === "route") expect(restFunctions).toBe(routeKeys.length + 1);
    // A route's integration and permission are in its function's stack (the checker above would
    // catch a reference across); one permission for each integration.
    const integrations = resources.filter((r) => r.Type === "AWS::ApiGatewayV2::Integration");
    const permissions = resources.filter((r) => r.Type === "AWS::Lambda::Permission" && r.Properties.Principal === "apigateway.amazonaws.com");
    expect(integrations.length).toBeGreaterThanOrEqual(packaging === "route" ? routeKeys.length : restFunctions);
    expect(permissions.length).toBe(integrations.length);
  });

  it("keeps the tables and the API in the root; gives each function its kind's role, scoped to the stack's own resources", () => {
    const [rootStack, ...nested] = stacks as [Stack, ...Stack[]];
    const tables = Object.values(rootStack.template.Resources)
      .filter((r) => r.Type === "AWS::DynamoDB::Table")
      .map((r) => r.Properties.TableName);
    for (const info of app.models()) expect(tables).toContain(`blog-ci-${info.name}`);
    for (let i = 1; i <= MODELS; i++) expect(tables).toContain(`blog-ci-${generatedName(i)}`);
    // A nested stack's statements name the root's tables through parameters: read as the root passes them.
    for (const stack of stacks) expect(overlyBroad(asRootSees(stack, rootStack), "blog-ci"), stack.id).toEqual([]);
    // Each role's inline policies pass IAM's 10,240-character cap; what would not fit goes to managed
    // policies of at most 6,144, attached to it in its stack (lib/cli/stacks/function-roles.test.ts).
    for (const stack of stacks) {
      const view = asRootSees(stack, rootStack).Resources;
      for (const id of Object.keys(stack.template.Resources)) {
        const resource = view[id] as (typeof view)[string];
        if (resource.Type === "AWS::IAM::Role")
          expect(
            policySize(
              ((resource.Properties.Policies ?? []) as { PolicyDocument: unknown }[]).map((p) => p.PolicyDocument),
              view,
            ),
            id,
          ).toBeLessThanOrEqual(INLINE_LIMIT);
        if (resource.Type !== "AWS::IAM::ManagedPolicy") continue;
        const [attached] = (stack.template.Resources[id]?.Properties.Roles ?? []) as { Ref: string }[];
        expect(stack.template.Resources[attached?.Ref ?? ""]?.Type, id).toBe("AWS::IAM::Role");
        expect(policySize(resource.Properties.PolicyDocument, view)).toBeLessThanOrEqual(MANAGED_LIMIT);
      }
    }
    // GraphQL's role writes every model's table (36 here) and no auth table but by reading a session.
    // Its function is a route group of its own (/graphql), so the role is in that group's stack once split.
    const graphqlStack = stacks.find((s) => s.template.Resources.GraphqlRole?.Type === "AWS::IAM::Role") as Stack;
    const graphql = grantsOf("GraphqlRole", graphqlStack, stacks);
    expect(graphql.filter((g) => g.action === "dynamodb:PutItem" && g.resource.startsWith("table:"))).toHaveLength(app.models().length + MODELS);
    // No write for a record read, no auth table or mail outside the auth functions, connections for ws, stream and the fan-out worker only.
    expect(kindViolations(stacks)).toEqual([]);
    expect(stacks.flatMap((s) => statementsOf(s.template)).filter((s) => [s.Action].flat().includes("execute-api:ManageConnections"))).toHaveLength(3);
    expect(rootStack.template.Resources.IamRoleLambdaExecution).toBeUndefined();
    for (const stack of nested) {
      // No table or API of their own: the root's, passed as parameters. A group's roles are its own.
      if (stack.id === "CloudwatchAlarmsNestedStack") {
        expect(allResources([stack]).every((r) => r.Type === "AWS::CloudWatch::Alarm")).toBe(true);
        continue;
      }
      expect(allResources([stack]).filter((r) => ["AWS::DynamoDB::Table", "AWS::ApiGatewayV2::Api"].includes(r.Type))).toEqual([]);
      expect(rootStack.template.Resources[stack.id]?.Properties.Parameters).toMatchObject({ HttpApi: { Ref: "HttpApi" } });
    }
    if (packaging !== "single") {
      // A generated model's routes run with the roles of its stack: a record read reads its table by
      // key, a query lists it, writes write it.
      const name = generatedName(1);
      const child = stacks.find((s) => s.id === `${name}sNestedStack`) as Stack;
      const roles = Object.entries(child.template.Resources)
        .filter(([, r]) => r.Type === "AWS::IAM::Role")
        .map(([id]) => id)
        .sort();
      expect(roles).toEqual(packaging === "route" ? [`${name}sQueryRole`, `${name}sReadRole`, `${name}sWriteRole`] : [`${name}sWriteRole`]);
      for (const resource of Object.values(child.template.Resources)) {
        if (resource.Type === "AWS::Lambda::Function")
          expect(roles).toContain((resource.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0]);
      }
    }
    const mappings = Object.values(rootStack.template.Resources).filter((r) => r.Type === "AWS::Lambda::EventSourceMapping");
    // One stream mapping per model table, and the fan-out queue's.
    expect(mappings).toHaveLength(app.models().length + MODELS + 1);
    expect(mappings.filter((r) => JSON.stringify(r.Properties.EventSourceArn ?? "").includes("FanoutQueue"))).toHaveLength(1);
  });

  it("sends every function's logs to a log group its own stack declares (so its retention is set there)", () => {
    for (const { template } of stacks) {
      for (const [id, fn] of Object.entries(template.Resources)) {
        if (fn.Type !== "AWS::Lambda::Function") continue;
        const shared = (fn.Properties.LoggingConfig as { LogGroup?: { Ref: string } } | undefined)?.LogGroup?.Ref;
        const name = shared ? template.Resources[shared]?.Properties.LogGroupName : `/aws/lambda/${fn.Properties.FunctionName as string}`;
        const declared = Object.values(template.Resources).some((r) => r.Type === "AWS::Logs::LogGroup" && r.Properties.LogGroupName === name);
        expect(declared, `${id} logs to ${String(name)}`).toBe(true);
      }
    }
  });
});
