import { describe, expect, it } from "vitest";
import { overlyBroad } from "../support/iam.ts";

// The checker that test/deploy/package.test.ts runs on the packaged template, tried here on
// templates that must fail, so a checker that lets everything through cannot go unnoticed.
const table = { Type: "AWS::DynamoDB::Table", Properties: {} };
const role = (statements: unknown[]) => ({
  Resources: {
    PostTable: table,
    Role: { Type: "AWS::IAM::Role", Properties: { Policies: [{ PolicyDocument: { Statement: statements } }] } },
  },
});
const own = { Effect: "Allow", Action: ["dynamodb:GetItem"], Resource: [{ "Fn::GetAtt": ["PostTable", "Arn"] }] };

describe("the template's IAM check", () => {
  it("passes the stack's own tables, indexes, WebSocket API and log groups", () => {
    expect(
      overlyBroad(
        role([
          own,
          { Effect: "Allow", Action: ["dynamodb:Query"], Resource: [{ "Fn::Join": ["", [{ "Fn::GetAtt": ["PostTable", "Arn"] }, "/index/*"]] }] },
          { Effect: "Allow", Action: ["dynamodb:GetRecords"], Resource: [{ "Fn::GetAtt": ["PostTable", "StreamArn"] }] },
          {
            Effect: "Allow",
            Action: ["execute-api:ManageConnections"],
            Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${WebsocketsApi}/*/*/@connections/*" }],
          },
          {
            Effect: "Allow",
            Action: ["logs:PutLogEvents"],
            Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/blog-ci*:*:*" }],
          },
          // A role's log statements narrowed to its route group's shared group, or one function's own.
          {
            Effect: "Allow",
            Action: ["logs:CreateLogStream"],
            Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/blog-ci/posts:*" }],
          },
          {
            Effect: "Allow",
            Action: ["logs:PutLogEvents"],
            Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/blog-ci-ws:*:*" }],
          },
        ]),
        "blog-ci",
      ),
    ).toEqual([]);
  });

  it.each([
    ["a bare *", { ...own, Resource: "*" }],
    ['["*"]', { ...own, Resource: ["*"] }],
    ["a literal ARN", { ...own, Resource: ["arn:aws:dynamodb:us-east-1:123456789012:table/Other"] }],
    ["dynamodb:*", { ...own, Action: ["dynamodb:*"] }],
    ["the action *", { ...own, Action: "*" }],
    [
      "any API of any account",
      { ...own, Action: ["execute-api:ManageConnections"], Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:execute-api:*:*:*/@connections/*" }] },
    ],
    ["a table the stack does not declare", { ...own, Resource: [{ "Fn::GetAtt": ["ForeignTable", "Arn"] }] }],
    [
      "another service's log groups",
      { ...own, Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/*:*" }] },
    ],
    [
      "a wildcard under the service's log groups",
      { ...own, Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/blog-ci/*:*" }] },
    ],
  ])("flags %s", (_name, statement) => {
    expect(overlyBroad(role([own, statement]), "blog-ci")).toHaveLength(1);
  });
});
