import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { validateCommand } from "./command.ts";
import { ALLOWED, allowanceFor, type Allowance } from "./allowed.ts";
import type { Finding } from "./findings.ts";
import { validatePackaged } from "./packaged.ts";
import { loadSpec } from "./spec.ts";
import { validateTemplate } from "./template.ts";

const spec = await loadSpec();
const scratch = await mkdtemp(join(tmpdir(), "cfn-validate-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A model table as lib/store/cloudformation.ts renders it, with `change` applied to its properties. */
function table(change: (p: Record<string, unknown>) => void = () => {}): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    TableName: "shop-ci-Post",
    BillingMode: "PAY_PER_REQUEST",
    KeySchema: [{ AttributeName: "uuid", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "uuid", AttributeType: "S" }],
    StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
    PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
  };
  change(properties);
  return { Type: "AWS::DynamoDB::Table", DeletionPolicy: "Retain", Properties: properties };
}

const check = (resources: Record<string, unknown>, extra: Record<string, unknown> = {}): Finding[] =>
  validateTemplate(spec, { AWSTemplateFormatVersion: "2010-09-09", Resources: resources, ...extra }, "t.json");
const lines = (findings: Finding[]): string[] => findings.map((f) => `${f.severity} ${f.path}: ${f.message}`);

describe("the CloudFormation validator (AWS's published resource specification)", () => {
  it("accepts a table as the packaged template declares it", () => {
    expect(lines(check({ PostTable: table() }))).toEqual([]);
  });

  it("refuses StreamEnabled in a table's StreamSpecification (DynamoDB's CreateTable has it, CloudFormation does not)", () => {
    const findings = check({
      PostTable: table((p) => {
        p.StreamSpecification = { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" };
      }),
    });
    expect(lines(findings)).toEqual([
      "error Resources.PostTable.Properties.StreamSpecification.StreamEnabled: StreamSpecification has no property StreamEnabled (it has ResourcePolicy, StreamViewType, Tags)",
    ]);
    expect(findings[0]).toMatchObject({ resource: "PostTable", type: "AWS::DynamoDB::Table", file: "t.json" });
  });

  it("refuses an unknown property, a wrong type, a missing required property and a value outside an enumeration", () => {
    expect(
      lines(
        check({
          T: table((p) => {
            p.Encrypted = true;
          }),
        }),
      ),
    ).toEqual([expect.stringMatching(/^error Resources\.T\.Properties\.Encrypted: AWS::DynamoDB::Table has no property Encrypted \(it has .*TableName/)]);
    expect(
      lines(
        check({
          T: table((p) => {
            p.AttributeDefinitions = { AttributeName: "uuid", AttributeType: "S" };
          }),
        }),
      ),
    ).toEqual(["error Resources.T.Properties.AttributeDefinitions: expects list of AttributeDefinition, got an object"]);
    expect(
      lines(
        check({
          T: table((p) => {
            p.PointInTimeRecoverySpecification = { PointInTimeRecoveryEnabled: "yes" };
          }),
        }),
      ),
    ).toEqual(['error Resources.T.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled: expects boolean, got string "yes"']);
    expect(
      lines(
        check({
          T: table((p) => {
            delete p.KeySchema;
          }),
        }),
      ),
    ).toEqual(["error Resources.T.Properties.KeySchema: AWS::DynamoDB::Table requires KeySchema"]);
    expect(
      lines(
        check({
          T: table((p) => {
            p.StreamSpecification = {};
          }),
        }),
      ),
    ).toEqual(["error Resources.T.Properties.StreamSpecification.StreamViewType: StreamSpecification requires StreamViewType"]);
    const fn = {
      Type: "AWS::Lambda::Function",
      Properties: { Role: "arn:aws:iam::1:role/r", Code: { ZipFile: "x" }, Architectures: ["arm64"], PackageType: "Docker" },
    };
    expect(lines(check({ Fn: fn }))).toEqual(['error Resources.Fn.Properties.PackageType: "Docker" is not one of Image, Zip']);
    expect(lines(check({ T: { ...table(), DeletionPolicy: "Keep" } }))).toEqual([
      'error Resources.T.DeletionPolicy: "Keep" is not one of Delete, Retain, RetainExceptOnCreate, Snapshot',
    ]);
    expect(lines(check({ T: { Type: "AWS::DynamoDB::Tables", Properties: {} } }))).toEqual([
      "error Resources.T.Type: AWS::DynamoDB::Tables is not a resource type of the specification",
    ]);
  });

  it("accepts an intrinsic function wherever a value is expected, and still checks both branches of an Fn::If", () => {
    const intrinsics = table((p) => {
      p.TableName = { "Fn::Sub": "${AWS::StackName}-Post" };
      p.KeySchema = {
        "Fn::If": [
          "Ranged",
          [
            { AttributeName: "uuid", KeyType: "HASH" },
            { AttributeName: "at", KeyType: "RANGE" },
          ],
          [{ AttributeName: "uuid", KeyType: "HASH" }],
        ],
      };
      p.StreamSpecification = { StreamViewType: { Ref: "StreamView" } };
      p.PointInTimeRecoverySpecification = { PointInTimeRecoveryEnabled: { "Fn::If": ["Prod", true, { Ref: "AWS::NoValue" }] } };
      p.Tags = [{ Key: "stage", Value: { Ref: "Stage" } }, { "Fn::If": ["Prod", { Key: "cost", Value: "prod" }, { Ref: "AWS::NoValue" }] }];
    });
    expect(lines(check({ T: intrinsics }))).toEqual([]);
    const badBranch = table((p) => {
      p.StreamSpecification = { "Fn::If": ["Prod", { StreamViewType: "NEW_AND_OLD_IMAGES" }, { StreamEnabled: false, StreamViewType: "KEYS_ONLY" }] };
    });
    expect(lines(check({ T: badBranch }))).toEqual([
      "error Resources.T.Properties.StreamSpecification.Fn::If[2].StreamEnabled: StreamSpecification has no property StreamEnabled (it has ResourcePolicy, StreamViewType, Tags)",
    ]);
    expect(
      lines(
        check({
          T: table((p) => {
            p.TableName = { "Fn::Joins": ["", ["a"]] };
          }),
        }),
      ),
    ).toEqual(["error Resources.T.Properties.TableName.Fn::Joins: unknown intrinsic function Fn::Joins"]);
    expect(
      lines(
        check({
          T: table((p) => {
            p.TableName = { "Fn::Join": ["a", "b", "c"] };
          }),
        }),
      ),
    ).toEqual(['error Resources.T.Properties.TableName.Fn::Join: Fn::Join takes [delimiter, [values]], got ["a","b","c"]']);
  });

  it("refuses an Fn::GetAtt of an attribute its target's type does not have", () => {
    const queue = { Type: "AWS::SQS::Queue", Properties: {} };
    const ok = { Q: queue, T: table(), Out: { Type: "AWS::SSM::Parameter", Properties: { Type: "String", Value: { "Fn::GetAtt": ["T", "StreamArn"] } } } };
    expect(lines(check(ok, { Outputs: { Arn: { Value: { "Fn::GetAtt": ["Q", "Arn"] } } } }))).toEqual([]);
    expect(lines(check({ Q: queue }, { Outputs: { Arn: { Value: { "Fn::GetAtt": "Q.StreamArn" } } } }))).toEqual([
      expect.stringMatching(/^error Outputs\.Arn\.Value\.Fn::GetAtt: AWS::SQS::Queue has no attribute StreamArn \(it has .*Arn/),
    ]);
  });

  it("checks every template of a packaged directory, root and nested, and says which file a finding is in", async () => {
    const dir = join(scratch, "packaged");
    await mkdir(dir);
    await writeFile(join(dir, "cloudformation-template-update-stack.json"), JSON.stringify({ Resources: { T: table() } }));
    await writeFile(
      join(dir, "cloudformation-template-nested-posts.json"),
      JSON.stringify({
        Resources: {
          T: table((p) => {
            p.BillingModes = "PAY_PER_REQUEST";
          }),
        },
      }),
    );
    await writeFile(join(dir, "serverless-state.json"), "{}");
    const report = await validatePackaged(dir);
    expect(report.files).toEqual(["cloudformation-template-nested-posts.json", "cloudformation-template-update-stack.json"]);
    expect(report.source).toMatch(/^@aws-cdk\/aws-service-spec@\d+\.\d+\.\d+$/);
    expect(report.findings.map((f) => `${f.file} ${f.path}`)).toEqual(["cloudformation-template-nested-posts.json Resources.T.Properties.BillingModes"]);
    await expect(validatePackaged(scratch)).rejects.toThrow(/holds no cloudformation-template-\*\.json/);
    // The command: 1 on an error, 0 on none, 2 on a directory that holds no template.
    const clean = join(scratch, "clean");
    await mkdir(clean);
    await writeFile(join(clean, "cloudformation-template-update-stack.json"), JSON.stringify({ Resources: { T: table() } }));
    expect([await validateCommand.run([dir]), await validateCommand.run([clean]), await validateCommand.run([join(scratch, "none")])]).toEqual([1, 0, 2]);
  });

  it("lets an allowance cover a finding by type, generic path and message, and nothing else", () => {
    const [finding] = check({ Fn: { Type: "AWS::SQS::Queue", Properties: { Fifo: true } } }) as [Finding];
    const allowance: Allowance = { type: "AWS::SQS::Queue", path: "Resources.*.Properties.Fifo", message: /has no property Fifo/, reason: "r", owner: "o" };
    expect(allowanceFor(finding, [allowance])).toBe(allowance);
    expect(allowanceFor(finding, [{ ...allowance, type: "AWS::SNS::Topic" }])).toBeUndefined();
    expect(allowanceFor(finding, [{ ...allowance, message: /requires/ }])).toBeUndefined();
    // Every entry of the project's list says why and whose it is.
    for (const entry of ALLOWED) expect(entry.reason.length * entry.owner.length).toBeGreaterThan(0);
  });

  it("finds nothing in the tables schema-cache/resources.json renders (the table and stream rendering)", async () => {
    const { Resources } = JSON.parse(await readFile(new URL("../../../schema-cache/resources.json", import.meta.url), "utf8")) as {
      Resources: Record<string, unknown>;
    };
    expect(Object.values(Resources).filter((r) => (r as { Type: string }).Type === "AWS::DynamoDB::Table").length).toBeGreaterThan(6);
    expect(lines(check(Resources))).toEqual([]);
  });
});
