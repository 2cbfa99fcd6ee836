import { describe, expect, it } from "vitest";
import { fitRolePolicies, INLINE_LIMIT, MANAGED_LIMIT, policySize } from "./role-policies.mjs";

interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}
type Resources = Record<string, { Type: string; DependsOn?: string[]; Properties: Record<string, unknown> }>;

/** A role like the framework's: the log statement, then every table and its indexes by ARN. */
function template(tables: number): { Resources: Resources } {
  const resources: Resources = {};
  const arns: unknown[] = [];
  for (let i = 0; i < tables; i++) {
    resources[`Model${i}Table`] = { Type: "AWS::DynamoDB::Table", Properties: { TableName: `shop-prod-Model${i}` } };
    arns.push({ "Fn::GetAtt": [`Model${i}Table`, "Arn"] }, { "Fn::Join": ["", [{ "Fn::GetAtt": [`Model${i}Table`, "Arn"] }, "/index/*"]] });
  }
  const statements: Statement[] = [
    {
      Effect: "Allow",
      Action: ["logs:CreateLogStream"],
      Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/shop-prod*:*" }],
    },
    { Effect: "Allow", Action: ["dynamodb:GetItem", "dynamodb:PutItem"], Resource: arns },
  ];
  resources.IamRoleLambdaExecution = {
    Type: "AWS::IAM::Role",
    Properties: { Policies: [{ PolicyName: "p", PolicyDocument: { Version: "2012-10-17", Statement: statements } }] },
  };
  resources.FnLambdaFunction = {
    Type: "AWS::Lambda::Function",
    DependsOn: ["FnLogGroup"],
    Properties: { Role: { "Fn::GetAtt": ["IamRoleLambdaExecution", "Arn"] } },
  };
  return { Resources: resources };
}

const inline = (t: { Resources: Resources }) =>
  (t.Resources.IamRoleLambdaExecution?.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]).map((p) => p.PolicyDocument);
const granted = (statements: Statement[]) => statements.flatMap((s) => s.Action.flatMap((a) => s.Resource.map((r) => `${a} ${JSON.stringify(r)}`))).sort();

describe("role policies", () => {
  it("leaves a role whose inline policy fits alone", () => {
    const t = template(10);
    const before = JSON.stringify(t);
    expect(fitRolePolicies(t)).toEqual([]);
    expect(JSON.stringify(t)).toBe(before);
  });

  it("moves what passes IAM's inline cap into managed policies on the same role, granting exactly the same", () => {
    const t = template(80);
    const all = granted(inline(t).flatMap((d) => d.Statement));
    expect(policySize(inline(t), t.Resources)).toBeGreaterThan(INLINE_LIMIT);
    const added = fitRolePolicies(t);
    expect(added.length).toBeGreaterThan(1);
    expect(policySize(inline(t), t.Resources)).toBeLessThanOrEqual(INLINE_LIMIT);
    const managed = added.map((id) => t.Resources[id] as { Type: string; Properties: { Roles: unknown; PolicyDocument: { Statement: Statement[] } } });
    for (const policy of managed) {
      expect(policy.Type).toBe("AWS::IAM::ManagedPolicy");
      expect(policy.Properties.Roles).toEqual([{ Ref: "IamRoleLambdaExecution" }]);
      expect(policySize(policy.Properties.PolicyDocument, t.Resources)).toBeLessThanOrEqual(MANAGED_LIMIT);
    }
    expect(granted([...inline(t).flatMap((d) => d.Statement), ...managed.flatMap((p) => p.Properties.PolicyDocument.Statement)])).toEqual(all);
    // A function never runs without every grant.
    expect(t.Resources.FnLambdaFunction?.DependsOn).toEqual(["FnLogGroup", ...added]);
  });
});
