import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unresolved, type Stack, type Template } from "../../../test/support/stacks.ts";
import { configuredLimit, shapeTemplate } from "./package-hooks.mjs";
import { routeGroups } from "./route-groups.mjs";
import { shareLogGroups } from "./shared-log-groups.mjs";
import { splitTemplate } from "./split.mjs";
import type { Serverless } from "../../core/serverless-host.ts";

const API = { Ref: "HttpApi" };
const url = (file: string) => ({ "Fn::Sub": `https://\${ServerlessDeploymentBucket}.s3.\${AWS::Region}.\${AWS::URLSuffix}/dir/${file}` });

/** What the framework compiles for one route: function, log group, permission, integration, route. */
function route(template: Template, name: string, routeKey: string, retention?: number): void {
  const fn = `${name}LambdaFunction`;
  template.Resources[`${name}LogGroup`] = {
    Type: "AWS::Logs::LogGroup",
    Properties: { LogGroupName: `/aws/lambda/shop-prod-${name}`, ...(retention ? { RetentionInDays: retention } : {}) },
  };
  template.Resources[fn] = {
    Type: "AWS::Lambda::Function",
    DependsOn: [`${name}LogGroup`],
    Properties: {
      FunctionName: `shop-prod-${name}`,
      Code: { S3Bucket: { Ref: "ServerlessDeploymentBucket" }, S3Key: `dir/${name}.zip` },
      Role: { "Fn::GetAtt": ["IamRoleLambdaExecution", "Arn"] },
    },
  };
  template.Resources[`${name}Permission`] = {
    Type: "AWS::Lambda::Permission",
    Properties: {
      FunctionName: { "Fn::GetAtt": [fn, "Arn"] },
      SourceArn: { "Fn::Sub": "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${HttpApi}/*" },
    },
  };
  template.Resources[`${name}Integration`] = {
    Type: "AWS::ApiGatewayV2::Integration",
    Properties: { ApiId: API, IntegrationUri: { "Fn::GetAtt": [fn, "Arn"] } },
  };
  template.Resources[`${name}Route`] = {
    Type: "AWS::ApiGatewayV2::Route",
    DependsOn: `${name}Integration`,
    Properties: { ApiId: API, RouteKey: routeKey, Target: { "Fn::Join": ["/", ["integrations", { Ref: `${name}Integration` }]] } },
  };
}

function sample(): { template: Template; groups: Map<string, string> } {
  const template: Template = {
    Resources: {
      ServerlessDeploymentBucket: { Type: "AWS::S3::Bucket", Properties: {} },
      HttpApi: { Type: "AWS::ApiGatewayV2::Api", Properties: {} },
      IamRoleLambdaExecution: { Type: "AWS::IAM::Role", Properties: {} },
      PostTable: { Type: "AWS::DynamoDB::Table", Properties: {} },
    },
    Outputs: { PostsGetArn: { Value: { "Fn::GetAtt": ["PostsGetLambdaFunction", "Arn"] } } },
  };
  const groups = new Map<string, string>();
  for (const [name, key, group] of [
    ["PostsGet", "GET /posts/{slug}", "posts"],
    ["PostsCreate", "POST /posts", "posts"],
    ["TagsGet", "GET /tags/{slug}", "tags"],
    ["TagsCreate", "POST /tags", "tags"],
    ["Fallback", "$default", undefined],
  ] as const) {
    route(template, name, key);
    if (group) groups.set(`${name}LambdaFunction`, group);
  }
  // A function reading another group's function (cross-stack), and a dashboard naming both groups (stays in the root).
  (template.Resources.TagsGetLambdaFunction as { Properties: Record<string, unknown> }).Properties.Environment = {
    Variables: { POSTS: { Ref: "PostsGetLambdaFunction" } },
  };
  template.Resources.Dashboard = {
    Type: "AWS::CloudWatch::Dashboard",
    Properties: { Body: { "Fn::Sub": "${PostsGetLambdaFunction} ${TagsGetLambdaFunction} ${PostTable.Arn}" } },
  };
  // An alarm on one function moves with it.
  template.Resources.PostsGetAlarm = {
    Type: "AWS::CloudWatch::Alarm",
    Properties: { Dimensions: [{ Name: "FunctionName", Value: { Ref: "PostsGetLambdaFunction" } }] },
  };
  return { template, groups };
}

describe("route groups", () => {
  it("groups a function by the first segment of its paths, never the catch-all or a function without HTTP routes", () => {
    const groups = routeGroups({
      a: { events: [{ httpApi: { method: "GET", path: "/posts/{slug}" } }, { httpApi: { method: "PUT", path: "/posts/{slug}/publish" } }] },
      b: { events: [{ httpApi: "*" }] },
      c: { events: [{ websocket: { route: "$connect" } }] },
      d: { events: [{ httpApi: { method: "GET", path: "/posts" } }, { httpApi: { method: "GET", path: "/tags" } }] },
      e: { events: [{ httpApi: "GET /.well-known/jwks.json" }] },
    });
    expect([...groups]).toEqual([
      ["a", "posts"],
      ["e", ".well-known"],
    ]);
  });
});

describe("shared log groups", () => {
  it("gives a route group's functions one log group with the settings of those it replaces, and leaves a lone function's own", () => {
    const { template, groups } = sample();
    (template.Resources.PostsGetLogGroup as { Properties: Record<string, unknown> }).Properties.RetentionInDays = 30;
    (template.Resources.PostsCreateLogGroup as { Properties: Record<string, unknown> }).Properties.RetentionInDays = 30;
    groups.set("FallbackLambdaFunction", "fallback");
    expect(shareLogGroups(template, groups, "/aws/lambda/shop-prod")).toBe(4);
    expect(template.Resources.PostsRoutesLogGroup).toEqual({
      Type: "AWS::Logs::LogGroup",
      Properties: { LogGroupName: "/aws/lambda/shop-prod/posts", RetentionInDays: 30 },
    });
    expect(template.Resources.TagsRoutesLogGroup?.Properties).toEqual({ LogGroupName: "/aws/lambda/shop-prod/tags" });
    for (const name of ["PostsGet", "PostsCreate"]) {
      expect(template.Resources[`${name}LogGroup`]).toBeUndefined();
      expect(template.Resources[`${name}LambdaFunction`]).toMatchObject({
        DependsOn: ["PostsRoutesLogGroup"],
        Properties: { LoggingConfig: { LogGroup: { Ref: "PostsRoutesLogGroup" } } },
      });
    }
    expect(template.Resources.FallbackLogGroup).toBeDefined();
    expect(template.Resources.FallbackLambdaFunction?.Properties.LoggingConfig).toBeUndefined();
  });

  it("keeps its own log group for a function whose retention differs from its group's", () => {
    const template: Template = { Resources: {} };
    route(template, "A", "GET /posts", 30);
    route(template, "B", "POST /posts", 30);
    route(template, "C", "PUT /posts", 7);
    const groups = new Map(["A", "B", "C"].map((n) => [`${n}LambdaFunction`, "posts"]));
    expect(shareLogGroups(template, groups, "/aws/lambda/shop-prod")).toBe(2);
    expect(template.Resources.PostsRoutesLogGroup?.Properties.RetentionInDays).toBe(30);
    expect(template.Resources.CLogGroup?.Properties.RetentionInDays).toBe(7);
  });
});

describe("nested stacks", () => {
  it("leaves a template at or under the limit alone", () => {
    const { template, groups } = sample();
    const before = JSON.stringify(template);
    expect(splitTemplate(template, { groupOfFunction: groups, limit: Object.keys(template.Resources).length, templateUrl: url })).toEqual([]);
    expect(JSON.stringify(template)).toBe(before);
  });

  it("moves each group with what hangs off it, and every reference resolves inside its own stack", () => {
    const { template, groups } = sample();
    const children = splitTemplate(template, { groupOfFunction: groups, limit: 12, templateUrl: url });
    expect(children.map((c) => [c.id, c.file])).toEqual([
      ["PostsNestedStack", "cloudformation-template-nested-posts.json"],
      ["TagsNestedStack", "cloudformation-template-nested-tags.json"],
    ]);
    const posts = children[0]?.template as Template;
    expect(Object.keys(posts.Resources).sort()).toEqual(
      ["PostsCreate", "PostsGet"]
        .flatMap((n) => [`${n}Integration`, `${n}LambdaFunction`, `${n}LogGroup`, `${n}Permission`, `${n}Route`])
        .concat("PostsGetAlarm")
        .sort(),
    );
    // The spine, the catch-all and what names two groups stay in the root.
    expect(Object.keys(template.Resources).sort()).toEqual([
      "Dashboard",
      "FallbackIntegration",
      "FallbackLambdaFunction",
      "FallbackLogGroup",
      "FallbackPermission",
      "FallbackRoute",
      "HttpApi",
      "IamRoleLambdaExecution",
      "PostTable",
      "PostsNestedStack",
      "ServerlessDeploymentBucket",
      "TagsNestedStack",
    ]);
    expect(template.Resources.PostsNestedStack?.Properties).toEqual({
      TemplateURL: url("cloudformation-template-nested-posts.json"),
      Parameters: {
        HttpApi: { Ref: "HttpApi" },
        IamRoleLambdaExecutionArn: { "Fn::GetAtt": ["IamRoleLambdaExecution", "Arn"] },
        ServerlessDeploymentBucket: { Ref: "ServerlessDeploymentBucket" },
      },
    });
    // Tags reads a Posts function: through Posts' output, and its stack waits for Posts'.
    expect(template.Resources.TagsNestedStack).toMatchObject({
      DependsOn: ["PostsNestedStack"],
      Properties: { Parameters: { PostsGetLambdaFunction: { "Fn::GetAtt": ["PostsNestedStack", "Outputs.PostsGetLambdaFunction"] } } },
    });
    expect(template.Resources.Dashboard?.Properties.Body).toEqual({
      "Fn::Sub": "${PostsNestedStack.Outputs.PostsGetLambdaFunction} ${TagsNestedStack.Outputs.TagsGetLambdaFunction} ${PostTable.Arn}",
    });
    expect(template.Outputs?.PostsGetArn?.Value).toEqual({ "Fn::GetAtt": ["PostsNestedStack", "Outputs.PostsGetLambdaFunctionArn"] });

    const stacks: Stack[] = [{ id: "root", template }, ...children.map((c) => ({ id: c.id, template: c.template }))];
    expect(unresolved(stacks)).toEqual([]);
  });

  it("moves the alarms on the root's own resources into a stack of their own, and leaves one on two groups' functions in the root", () => {
    const { template, groups } = sample();
    template.Resources.TableThrottlesAlarm = {
      Type: "AWS::CloudWatch::Alarm",
      Properties: { Dimensions: [{ Name: "TableName", Value: { Ref: "PostTable" } }] },
    };
    template.Resources.LockoutsAlarm = { Type: "AWS::CloudWatch::Alarm", Properties: { MetricName: "Lockouts", Namespace: "shop/prod" } };
    template.Resources.ErrorsAlarm = {
      Type: "AWS::CloudWatch::Alarm",
      Properties: { Metrics: [{ Dimensions: [{ Value: { Ref: "PostsGetLambdaFunction" } }] }, { Dimensions: [{ Value: { Ref: "TagsGetLambdaFunction" } }] }] },
    };
    const children = splitTemplate(template, { groupOfFunction: groups, limit: 12, templateUrl: url });
    const alarms = children.find((c) => c.id === "CloudwatchAlarmsNestedStack");
    expect(Object.keys(alarms?.template.Resources ?? {}).sort()).toEqual(["LockoutsAlarm", "TableThrottlesAlarm"]);
    expect(template.Resources.CloudwatchAlarmsNestedStack?.Properties).toMatchObject({ Parameters: { PostTable: { Ref: "PostTable" } } });
    // On functions of two groups: in the root, reading both groups' outputs.
    expect(Object.keys(template.Resources)).toContain("ErrorsAlarm");
    expect(Object.keys(children.find((c) => c.id === "PostsNestedStack")?.template.Resources ?? {})).toContain("PostsGetAlarm");
    const stacks: Stack[] = [{ id: "root", template }, ...children.map((c) => ({ id: c.id, template: c.template }))];
    expect(unresolved(stacks)).toEqual([]);
  });

  it("is what the checker catches: a reference left pointing across the boundary", () => {
    const { template, groups } = sample();
    const children = splitTemplate(template, { groupOfFunction: groups, limit: 12, templateUrl: url });
    const posts = children[0]?.template as Template;
    (posts.Resources.PostsGetPermission as { Properties: Record<string, unknown> }).Properties.SourceArn = { "Fn::GetAtt": ["PostTable", "Arn"] };
    delete (template.Resources.TagsNestedStack?.Properties.Parameters as Record<string, unknown>).HttpApi;
    expect(unresolved([{ id: "root", template }, ...children.map((c) => ({ id: c.id, template: c.template }))]).sort()).toEqual([
      "PostsNestedStack/PostsGetPermission: GetAtt PostTable.Arn",
      "root/TagsNestedStack: passes [IamRoleLambdaExecutionArn,PostsGetLambdaFunction,ServerlessDeploymentBucket], declares [HttpApi,IamRoleLambdaExecutionArn,PostsGetLambdaFunction,ServerlessDeploymentBucket]",
    ]);
  });

  it("splits at any limit, and refuses a group that alone passes the largest stack allowed", () => {
    const { template, groups } = sample();
    expect(() => splitTemplate(template, { groupOfFunction: groups, limit: 5, maxResources: 10, templateUrl: url })).toThrow(
      /The routes of posts alone need 11 CloudFormation resources \(limit 10\)/,
    );
    // The limit says when to split, not how large a group may be.
    expect(splitTemplate(sample().template, { groupOfFunction: groups, limit: 1, templateUrl: url })).toHaveLength(2);
  });
});

describe("custom.nestedStacks.limit", () => {
  it("is 450 unless set, and a whole number from 1 to 500", () => {
    expect(configuredLimit(undefined)).toBe(450);
    expect(configuredLimit({ nestedStacks: { limit: "300" } })).toBe(300);
    for (const bad of ["0", "501", "4.5", "many"]) expect(() => configuredLimit({ nestedStacks: { limit: bad } })).toThrow(/custom.nestedStacks.limit/);
  });

  it("decides, in the packaging hook, whether the compiled template splits; the children are written beside it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "stacks-"));
    try {
      const shape = async (limit: number | undefined) => {
        const { template } = sample();
        const functions = Object.fromEntries(
          [
            ["PostsGet", "/posts/{slug}"],
            ["PostsCreate", "/posts"],
            ["TagsGet", "/tags/{slug}"],
            ["TagsCreate", "/tags"],
          ].map(([name, path]) => [name, { events: [{ httpApi: { method: "GET", path } }] }]),
        );
        const serverless = {
          serviceDir: dir,
          classes: { Error },
          service: {
            service: "shop",
            custom: limit === undefined ? {} : { nestedStacks: { limit } },
            functions,
            package: { artifactDirectoryName: "serverless/shop/prod/1-x" },
            provider: { compiledCloudFormationTemplate: template },
          },
          getProvider: () => ({ getStage: () => "prod", naming: { getLambdaLogicalId: (name: string) => `${name}LambdaFunction` } }),
        };
        return { result: await shapeTemplate(serverless as unknown as Serverless), template };
      };
      const small = await shape(undefined);
      expect(small.result.counts).toEqual([["root", Object.keys(small.template.Resources).length]]);
      const split = await shape(12);
      expect(split.result.counts.map(([g]) => g)).toEqual(["root", "posts", "tags"]);
      const written = JSON.parse(await readFile(join(dir, ".serverless", "cloudformation-template-nested-posts.json"), "utf8")) as Template;
      expect(Object.keys(written.Resources)).toContain("PostsGetLambdaFunction");
      expect(split.template.Resources.PostsNestedStack?.Properties.TemplateURL).toEqual({
        "Fn::Sub":
          "https://${ServerlessDeploymentBucket}.s3.${AWS::Region}.${AWS::URLSuffix}/serverless/shop/prod/1-x/cloudformation-template-nested-posts.json",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
