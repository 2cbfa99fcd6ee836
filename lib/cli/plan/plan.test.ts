import { describe, expect, it } from "vitest";
import type { CfnTemplate } from "../../core/serverless-host.ts";
import SchemaCachePlugin from "../serverless-plugin.mjs";
import { acceptedTables, planDeploy } from "./deploy.mjs";
import { blocking, indexOps, planTables } from "./diff.mjs";
import { stepTemplates } from "./steps.mjs";
import { templateTables } from "./tables.mjs";

type Gsi = { name: string; hash: string; range?: string };

/** A table resource as tableResources (lib/store/cloudformation.ts) renders one. */
function table(name: string, key: string[], indexes: Gsi[] = [], extra: Record<string, unknown> = {}) {
  const schema = (hash: string, range?: string) => [{ AttributeName: hash, KeyType: "HASH" }, ...(range ? [{ AttributeName: range, KeyType: "RANGE" }] : [])];
  const attributes = new Set([...key, ...indexes.flatMap((i) => [i.hash, ...(i.range ? [i.range] : [])])]);
  return {
    Type: "AWS::DynamoDB::Table",
    DeletionPolicy: "Retain",
    UpdateReplacePolicy: "Retain",
    Properties: {
      TableName: name,
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: schema(key[0] ?? "", key[1]),
      AttributeDefinitions: [...attributes].map((a) => ({ AttributeName: a, AttributeType: a === "year" ? "N" : "S" })),
      ...(indexes.length > 0
        ? { GlobalSecondaryIndexes: indexes.map((i) => ({ IndexName: i.name, KeySchema: schema(i.hash, i.range), Projection: { ProjectionType: "ALL" } })) }
        : {}),
      StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
      ...extra,
    },
  };
}

const template = (resources: Record<string, unknown>): CfnTemplate => ({ Resources: resources as CfnTemplate["Resources"] });

/** The index names of each table of a template. */
const indexNames = (t: CfnTemplate) =>
  new Map([...templateTables([t])].map(([id, spec]) => [id, new Set(spec.indexes.map((i) => `${i.name}:${JSON.stringify(i.key)}`))]));

/** How many indexes differ between two templates, per table (created + deleted + changed). */
function delta(a: CfnTemplate, b: CfnTemplate): Map<string, number> {
  const [x, y] = [indexNames(a), indexNames(b)];
  return new Map(
    [...y].map(([id, names]) => [id, [...names].filter((n) => !x.get(id)?.has(n)).length + [...(x.get(id) ?? [])].filter((n) => !names.has(n)).length]),
  );
}

const v1 = template({
  BookTable: table("shop-prod-Book", ["slug"], [{ name: "by_title", hash: "title", range: "slug" }]),
  TagTable: table("shop-prod-Tag", ["name"]),
});

describe("the tables' plan", () => {
  it("orders deletions before creations, and a changed index as a deletion and a creation", () => {
    const specs = (t: CfnTemplate) => templateTables([t]).get("BookTable")?.indexes ?? [];
    const next = template({
      BookTable: table(
        "shop-prod-Book",
        ["slug"],
        [
          { name: "by_title", hash: "title" },
          { name: "by_author", hash: "author", range: "slug" },
        ],
      ),
    });
    expect(indexOps(specs(v1), specs(next)).map((o) => `${o.op} ${o.index}`)).toEqual(["delete by_title", "create by_title", "create by_author"]);
  });

  it("carries three index changes on one table as three steps, one index each, the last the target", () => {
    const v2 = template({
      BookTable: table(
        "shop-prod-Book",
        ["slug"],
        [
          { name: "by_author", hash: "author", range: "slug" },
          { name: "by_publisher", hash: "publisher", range: "slug" },
          { name: "by_genre", hash: "genre", range: "year" },
        ],
      ),
      TagTable: table("shop-prod-Tag", ["name"], [{ name: "by_kind", hash: "kind", range: "name" }]),
    });
    const plan = planTables(templateTables([v1]), templateTables([v2]));
    expect(blocking(plan)).toEqual([]);
    // by_title goes, three come: four operations; Tag's one goes with step 1.
    expect(plan.steps).toBe(4);
    const steps = stepTemplates([v1], v2);
    expect(steps).toHaveLength(4);
    expect(steps.at(-1)).toBe(v2);
    let before = v1;
    for (const step of steps) {
      for (const [id, n] of delta(before, step)) expect(n, `${id}`).toBeLessThanOrEqual(1);
      // Every attribute defined is one a key uses (CloudFormation refuses the others).
      for (const resource of Object.values(step.Resources)) {
        const props = resource.Properties as {
          KeySchema: { AttributeName: string }[];
          AttributeDefinitions: { AttributeName: string }[];
          GlobalSecondaryIndexes?: { KeySchema: { AttributeName: string }[] }[];
        };
        const used = new Set([...props.KeySchema, ...(props.GlobalSecondaryIndexes ?? []).flatMap((g) => g.KeySchema)].map((k) => k.AttributeName));
        expect(new Set(props.AttributeDefinitions.map((a) => a.AttributeName))).toEqual(used);
      }
      before = step;
    }
    // Step 1 deleted by_title and added Tag's index; the baseline is untouched.
    expect([...(indexNames(steps[0] as CfnTemplate).get("BookTable") ?? [])]).toEqual([]);
    expect(indexNames(steps[0] as CfnTemplate).get("TagTable")?.size).toBe(1);
    expect(indexNames(v1).get("BookTable")?.size).toBe(1);
  });

  it("types an attribute as the baseline does while a baseline index still uses it", () => {
    const typed = (t: string) => ({ AttributeName: "year", AttributeType: t });
    const old = table(
      "shop-prod-Book",
      ["slug"],
      [
        { name: "by_kind", hash: "kind" },
        { name: "by_year", hash: "year" },
      ],
    );
    old.Properties.AttributeDefinitions = old.Properties.AttributeDefinitions.map((a) => (a.AttributeName === "year" ? typed("S") : a));
    const next = table("shop-prod-Book", ["slug"], [{ name: "by_genre", hash: "genre", range: "year" }]);
    const steps = stepTemplates([template({ BookTable: old })], template({ BookTable: next }));
    expect(steps).toHaveLength(3);
    const definitions = (t: CfnTemplate) => (t.Resources.BookTable?.Properties as { AttributeDefinitions: unknown[] }).AttributeDefinitions;
    // Step 1 deletes by_kind; by_year (year as a string) is still there.
    expect(definitions(steps[0] as CfnTemplate)).toContainEqual(typed("S"));
    expect(definitions(steps[1] as CfnTemplate)).toEqual([{ AttributeName: "slug", AttributeType: "S" }]);
    expect(definitions(steps[2] as CfnTemplate)).toContainEqual(typed("N"));
  });

  it("refuses a key change, never acceptable, with what to run", () => {
    const v2 = template({ BookTable: table("shop-prod-Book", ["isbn"]), TagTable: table("shop-prod-Tag", ["name"]) });
    const plan = planTables(templateTables([v1]), templateTables([v2]), { accept: ["BookTable"], deploy: "serverless deploy --stage prod" });
    const [refusal] = blocking(plan);
    expect(refusal).toMatchObject({ id: "BookTable", kind: "key", acceptable: false, accepted: false });
    expect(refusal?.message).toContain("slug (S) -> isbn (S)");
    expect(refusal?.commands.join("\n")).toContain("npx webda db copy --from shop-prod-Book --to <the new table>");
  });

  it("refuses a removed table until accepted, naming its likely heir for the copy", () => {
    const v2 = template({ BookTable: v1.Resources.BookTable, LabelTable: table("shop-prod-Label", ["name"]) });
    const plan = planTables(templateTables([v1]), templateTables([v2]), { deploy: "serverless deploy --stage prod" });
    const [refusal] = blocking(plan);
    expect(refusal).toMatchObject({ id: "TagTable", kind: "removed", acceptable: true });
    expect(refusal?.commands).toEqual([
      "serverless deploy --stage prod --param acceptTableChanges=TagTable",
      "npx webda db copy --from shop-prod-Tag --to shop-prod-Label   (after the deploy; keeps shop-prod-Tag until --drop-source)",
    ]);
    expect(plan.tables.find((t) => t.id === "TagTable")?.renamedTo).toBe("shop-prod-Label");
    expect(blocking(planTables(templateTables([v1]), templateTables([v2]), { accept: ["TagTable"] }))).toEqual([]);
    // Two candidates of the same key: no guess.
    const two = template({ ...v2.Resources, KindTable: table("shop-prod-Kind", ["name"]) });
    expect(blocking(planTables(templateTables([v1]), templateTables([two])))[0]?.commands[1]).toContain("--to <its new table>");
  });

  it("refuses a removed table CloudFormation would delete, even accepted", () => {
    const bare = template({ ...v1.Resources, TagTable: { ...table("shop-prod-Tag", ["name"]), DeletionPolicy: "Delete" } });
    const plan = planTables(templateTables([bare]), templateTables([template({ BookTable: v1.Resources.BookTable })]), { accept: ["TagTable"] });
    expect(blocking(plan).map((r) => r.kind)).toEqual(["not-retained"]);
  });

  it("refuses a renamed table (a replacement) until accepted", () => {
    const v2 = template({ BookTable: v1.Resources.BookTable, TagTable: table("shop-prod-Tag2", ["name"]) });
    const plan = planTables(templateTables([v1]), templateTables([v2]));
    expect(blocking(plan)).toMatchObject([{ id: "TagTable", kind: "replaced" }]);
    expect(blocking(planTables(templateTables([v1]), templateTables([v2]), { accept: ["TagTable"] }))).toEqual([]);
    // Not retained, the replacement would delete the old table: never accepted.
    const bare = template({ ...v1.Resources, TagTable: { ...table("shop-prod-Tag", ["name"]), UpdateReplacePolicy: "Delete" } });
    const deleting = blocking(planTables(templateTables([bare]), templateTables([v2]), { accept: ["TagTable"] }));
    expect(deleting).toMatchObject([{ kind: "replaced", acceptable: false }]);
    expect(deleting[0]?.message).toContain("deletes shop-prod-Tag and its records");
  });

  it("says what a stream and a TTL change do, and refuses a TTL attribute change", () => {
    const ttl = (a: string) => ({ TimeToLiveSpecification: { AttributeName: a, Enabled: true } });
    const base = template({ TagTable: table("shop-prod-Tag", ["name"], [], ttl("expires")) });
    const streamOff = template({ TagTable: table("shop-prod-Tag", ["name"], [], { ...ttl("expires"), StreamSpecification: undefined }) });
    expect(planTables(templateTables([base]), templateTables([streamOff])).tables[0]?.notes).toEqual([
      "stream turned off (NEW_AND_OLD_IMAGES): its readers stop",
    ]);
    const moved = planTables(templateTables([base]), templateTables([template({ TagTable: table("shop-prod-Tag", ["name"], [], ttl("until")) })]));
    expect(blocking(moved)).toMatchObject([{ kind: "ttl" }]);
    const off = planTables(templateTables([base]), templateTables([template({ TagTable: table("shop-prod-Tag", ["name"]) })]));
    expect(off.tables[0]?.notes).toEqual(["TTL off (was expires)"]);
  });
});

describe("the deploy's plan (serverless deploy, against GetTemplate)", () => {
  const v2 = template({
    BookTable: table(
      "shop-prod-Book",
      ["slug"],
      [
        { name: "by_title", hash: "title", range: "slug" },
        { name: "by_author", hash: "author", range: "slug" },
        { name: "by_genre", hash: "genre", range: "year" },
      ],
    ),
    TagTable: v1.Resources.TagTable,
  });

  it("deploys the first step of several and says to run the deploy again; the next deploy the next", () => {
    const first = planDeploy(v1, v2, { accept: [], deploy: "serverless deploy --stage prod" });
    expect(first).toMatchObject({ refused: false, steps: 2 });
    expect(first.lines.at(-1)).toBe("this deploy applies step 1 of 2; run `serverless deploy --stage prod` again for the next");
    expect(delta(v1, first.template).get("BookTable")).toBe(1);
    const second = planDeploy(first.template, v2, { accept: [], deploy: "serverless deploy --stage prod" });
    expect(second).toMatchObject({ refused: false, steps: 1 });
    expect(second.template).toBe(v2);
  });

  it("applies a plan of one step as is, and a first deploy without comparing", () => {
    expect(planDeploy(v1, v1, { accept: [], deploy: "d" })).toMatchObject({ refused: false, steps: 1, template: v1, lines: ["tables: no change"] });
    expect(planDeploy(undefined, v2, { accept: [], deploy: "d" })).toMatchObject({ refused: false, template: v2 });
  });

  it("the plugin refuses a key change before CloudFormation is asked, and rewrites the template to step 1 otherwise", async () => {
    const notices: string[] = [];
    const fakeServerless = (compiled: CfnTemplate, param: string[] = []) => ({
      service: { provider: { stage: "prod", compiledCloudFormationTemplate: compiled } },
      processedInput: { options: { param } },
      configurationInput: { params: {} },
      classes: { Error },
      getProvider: () => ({
        getStage: () => "prod",
        naming: { getStackName: () => "shop-prod" },
        // The deployed stack's template, as CloudFormation's GetTemplate returns it.
        request: async (service: string, method: string, params: { StackName: string }) => {
          expect([service, method, params.StackName]).toEqual(["CloudFormation", "getTemplate", "shop-prod"]);
          return { TemplateBody: JSON.stringify(v1) };
        },
      }),
    });
    const log = { notice: (m: string) => notices.push(m), warning: (m: string) => notices.push(m) };
    const rekeyed = template({ BookTable: table("shop-prod-Book", ["isbn"]), TagTable: v1.Resources.TagTable });
    const refusing = fakeServerless(rekeyed);
    // @ts-expect-error -- a Serverless of the parts the hook reads
    await expect(new SchemaCachePlugin(refusing, {}, { log }).planTables()).rejects.toThrow(/refuses this deploy/);
    expect(refusing.service.provider.compiledCloudFormationTemplate).toBe(rekeyed);
    expect(notices.join("\n")).toContain("its key changes (slug (S) -> isbn (S))");

    const stepping = fakeServerless(v2, ["acceptTableChanges=TagTable"]);
    // @ts-expect-error -- as above
    await new SchemaCachePlugin(stepping, {}, { log }).planTables();
    expect(delta(v1, stepping.service.provider.compiledCloudFormationTemplate).get("BookTable")).toBe(1);
    expect(notices.at(-1)).toContain("step 1 of 2");
  });

  it("reads the accepted tables from --param and serverless.yml params", () => {
    const serverless = {
      service: { provider: { stage: "prod" } },
      processedInput: { options: { param: ["other=1", "acceptTableChanges=TagTable, NoteTable"] } },
      configurationInput: { params: { prod: { acceptTableChanges: "MemoTable" } } },
    };
    // @ts-expect-error -- the parts acceptedTables reads
    expect(acceptedTables(serverless)).toEqual(["TagTable", "NoteTable", "MemoTable"]);
  });
});
