import { describe, expect, it } from "vitest";
import { unresolved, type Template } from "../../../test/support/stacks.ts";
import { FRAMEWORK_ROLE, assignFunctionRoles, narrowLogStatements } from "./function-roles.mjs";
import { fitRolePolicies } from "./role-policies.mjs";
import { splitTemplate } from "./split.mjs";

const LOGS = [
  {
    Effect: "Allow",
    Action: ["logs:CreateLogStream", "logs:CreateLogGroup"],
    Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/shop-prod*:*" }],
  },
  {
    Effect: "Allow",
    Action: ["logs:PutLogEvents"],
    Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/shop-prod*:*:*" }],
  },
];
const STREAM = {
  Effect: "Allow",
  Action: ["dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:DescribeStream", "dynamodb:ListStreams"],
  Resource: [{ "Fn::GetAtt": ["PostTable", "StreamArn"] }],
};
const arn = (id: string) => ({ "Fn::GetAtt": [id, "Arn"] });
const fn = (name: string, extra: Record<string, unknown> = {}) => ({
  Type: "AWS::Lambda::Function",
  Properties: {
    FunctionName: `shop-prod-${name}`,
    Code: { S3Bucket: { Ref: "ServerlessDeploymentBucket" }, S3Key: `dir/${name}.zip` },
    Role: arn(FRAMEWORK_ROLE),
    ...extra,
  },
});

/** What the framework compiles: its one role (logs, the stream's reads), two route functions, the stream function and its mapping. */
function compiled(): Template {
  return {
    Resources: {
      ServerlessDeploymentBucket: { Type: "AWS::S3::Bucket", Properties: {} },
      HttpApi: { Type: "AWS::ApiGatewayV2::Api", Properties: {} },
      PostTable: { Type: "AWS::DynamoDB::Table", Properties: { TableName: "shop-prod-Post" } },
      [FRAMEWORK_ROLE]: {
        Type: "AWS::IAM::Role",
        Properties: {
          AssumeRolePolicyDocument: {
            Version: "2012-10-17",
            Statement: [{ Effect: "Allow", Principal: { Service: ["lambda.amazonaws.com"] }, Action: ["sts:AssumeRole"] }],
          },
          Path: "/",
          Policies: [{ PolicyName: "shop-prod-lambda", PolicyDocument: { Version: "2012-10-17", Statement: [...LOGS, STREAM] } }],
        },
      },
      PostsLogGroup: { Type: "AWS::Logs::LogGroup", Properties: { LogGroupName: "/aws/lambda/shop-prod/posts" } },
      RestDashpostDashgetLambdaFunction: fn("rest-post-get", { LoggingConfig: { LogGroup: { Ref: "PostsLogGroup" } } }),
      RestDashpostDashcreateLambdaFunction: fn("rest-post-create", { LoggingConfig: { LogGroup: { Ref: "PostsLogGroup" } } }),
      StreamLambdaFunction: fn("stream"),
      HandDashwrittenLambdaFunction: fn("hand-written"),
      StreamMapping: {
        Type: "AWS::Lambda::EventSourceMapping",
        DependsOn: [FRAMEWORK_ROLE],
        Properties: { FunctionName: arn("StreamLambdaFunction"), EventSourceArn: { "Fn::GetAtt": ["PostTable", "StreamArn"] } },
      },
    },
  } as unknown as Template;
}

const READ = { Effect: "Allow", Action: ["dynamodb:GetItem"], Resource: [arn("PostTable")] };
const WRITE = { Effect: "Allow", Action: ["dynamodb:GetItem", "dynamodb:PutItem"], Resource: [arn("PostTable")] };
const map = {
  roles: { PostsReadRole: [READ], PostsWriteRole: [WRITE], StreamRole: [READ] },
  functions: { "rest-post-get": "PostsReadRole", "rest-post-create": "PostsWriteRole" },
  handlers: { "functions/stream.handler": "StreamRole" },
};
const functions = {
  "rest-post-get": { handler: "functions/rest-read.handler" },
  "rest-post-create": { handler: "functions/rest.handler" },
  stream: { handler: "functions/stream.handler", events: [{ stream: { type: "dynamodb" } }] },
  "hand-written": { handler: "functions/mine.handler" },
};
/** The framework's naming: `rest-post-get` -> `RestDashpostDashgetLambdaFunction`. */
const logicalId = (name: string) => `${(name[0] ?? "").toUpperCase()}${name.slice(1).replace(/-/g, "Dash")}LambdaFunction`;
const statementsOf = (t: Template, role: string) =>
  (t.Resources[role]?.Properties.Policies as { PolicyDocument: { Statement: unknown[] } }[]).flatMap((p) => p.PolicyDocument.Statement);

describe("each function's own role", () => {
  it("gives every function the role roles.json names, with the framework's logs and, for a stream's function only, its event statements", () => {
    const template = compiled();
    expect(assignFunctionRoles(template, functions, map, logicalId)).toEqual(["PostsReadRole", "PostsWriteRole", "StreamRole"]);
    const r = template.Resources;
    expect(r.RestDashpostDashgetLambdaFunction?.Properties.Role).toEqual(arn("PostsReadRole"));
    expect(r.RestDashpostDashcreateLambdaFunction?.Properties.Role).toEqual(arn("PostsWriteRole"));
    expect(r.StreamLambdaFunction?.Properties.Role).toEqual(arn("StreamRole"));
    expect(statementsOf(template, "PostsReadRole")).toEqual([...LOGS, READ]);
    expect(statementsOf(template, "StreamRole")).toEqual([...LOGS, READ, STREAM]);
    expect(r.PostsReadRole?.Properties.AssumeRolePolicyDocument).toEqual(r[FRAMEWORK_ROLE]?.Properties.AssumeRolePolicyDocument);
    // A websocket event's posting statement is the WebSocket function's alone; none here.
    expect(JSON.stringify(r.PostsWriteRole)).not.toContain("ManageConnections");
    // A function roles.json does not name keeps the framework's role, which grants no table.
    expect(r.HandDashwrittenLambdaFunction?.Properties.Role).toEqual(arn(FRAMEWORK_ROLE));
    expect(JSON.stringify(statementsOf(template, FRAMEWORK_ROLE))).not.toContain("PutItem");
  });

  it("removes the framework's role once no function uses it; the stream's mapping waits for its function's role", () => {
    const template = compiled();
    delete template.Resources.HandDashwrittenLambdaFunction;
    const { "hand-written": _mine, ...generated } = functions;
    assignFunctionRoles(template, generated, map, logicalId);
    expect(template.Resources[FRAMEWORK_ROLE]).toBeUndefined();
    expect(template.Resources.StreamMapping?.DependsOn).toEqual(["StreamRole"]);
    expect(unresolved([{ id: "root", template }])).toEqual([]);
  });

  it("gives every role what provider.iam.role.statements grants all functions", () => {
    const template = compiled();
    const own = { Effect: "Allow", Action: ["s3:GetObject"], Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:s3:::shop-assets/*" }] };
    (template.Resources[FRAMEWORK_ROLE]?.Properties.Policies as { PolicyDocument: { Statement: unknown[] } }[])[0]?.PolicyDocument.Statement.push(own);
    assignFunctionRoles(template, functions, map, logicalId);
    for (const role of ["PostsReadRole", "PostsWriteRole", "StreamRole"]) expect(statementsOf(template, role)).toContainEqual(own);
  });

  it("keeps a role the author gave a function, and refuses a role id that names another resource", () => {
    const template = compiled();
    (template.Resources.StreamLambdaFunction as { Properties: Record<string, unknown> }).Properties.Role = "arn:aws:iam::123456789012:role/mine";
    assignFunctionRoles(template, functions, map, logicalId);
    expect(template.Resources.StreamLambdaFunction?.Properties.Role).toBe("arn:aws:iam::123456789012:role/mine");
    expect(() => assignFunctionRoles(compiled(), functions, { ...map, functions: { "rest-post-get": "PostTable" } }, logicalId)).toThrow(
      /PostTable already names a resource/,
    );
  });

  it("narrows each role's log statements to its functions' log groups", () => {
    const template = compiled();
    assignFunctionRoles(template, functions, map, logicalId);
    narrowLogStatements(template);
    const logs = (role: string) => statementsOf(template, role).filter((s) => JSON.stringify(s).includes("logs:"));
    expect(logs("PostsReadRole")).toEqual([
      { ...LOGS[0], Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/shop-prod/posts:*" }] },
      { ...LOGS[1], Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/shop-prod/posts:*:*" }] },
    ]);
    expect(JSON.stringify(logs("StreamRole"))).toContain("log-group:/aws/lambda/shop-prod-stream:*");
  });

  it("moves a role that one route group's functions use into its nested stack, managed policies and all; a shared role stays in the root", () => {
    const template = compiled();
    assignFunctionRoles(template, functions, map, logicalId);
    // Enough tables that the write role's inline policy overflows into managed policies.
    const many = Array.from({ length: 60 }, (_, i) => `Model${i}Table`);
    for (const id of many) template.Resources[id] = { Type: "AWS::DynamoDB::Table", Properties: { TableName: `shop-prod-${id}` } };
    const [writes] = template.Resources.PostsWriteRole?.Properties.Policies as { PolicyDocument: { Statement: unknown[] } }[];
    writes?.PolicyDocument.Statement.push({
      Effect: "Allow",
      Action: ["dynamodb:GetItem", "dynamodb:PutItem"],
      Resource: many.flatMap((id) => [arn(id), { "Fn::Join": ["", [arn(id), "/index/*"]] }]),
    });
    const policies = fitRolePolicies(template as never);
    expect(policies.length).toBeGreaterThan(0);
    const groups = new Map([
      ["RestDashpostDashgetLambdaFunction", "posts"],
      ["RestDashpostDashcreateLambdaFunction", "posts"],
    ]);
    const children = splitTemplate(template, { groupOfFunction: groups, limit: 1, templateUrl: (f: string) => f });
    const posts = children.find((c) => c.group === "posts");
    expect(Object.keys(posts?.template.Resources ?? {})).toEqual(expect.arrayContaining(["PostsReadRole", "PostsWriteRole", ...policies]));
    expect(posts?.template.Resources.RestDashpostDashgetLambdaFunction?.Properties.Role).toEqual(arn("PostsReadRole"));
    expect(template.Resources.StreamRole?.Type).toBe("AWS::IAM::Role");
    expect(template.Resources.PostsReadRole).toBeUndefined();
    const stacks = [{ id: "root", template }, ...children.map((c) => ({ id: c.id, template: c.template as Template }))];
    expect(unresolved(stacks)).toEqual([]);
  });
});
