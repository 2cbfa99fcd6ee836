import { describe, expect, it } from "vitest";
import SecretParametersPlugin from "./serverless-plugin.mjs";
import type { Serverless } from "../../core/serverless-host.ts";

class ServerlessError extends Error {}

interface Fn {
  handler: string;
  environment?: Record<string, string>;
}

const readers = {
  "functions/rest": ["APP_SECRET"],
  "functions/rest-read": [],
  "functions/auth": ["APP_SECRET", "AUTH_SIGNING_KEY", "IDP_CLIENT_SECRET"],
};
const parameters = { APP_SECRET: "/shop/prod/app-secret", AUTH_SIGNING_KEY: "/shop/prod/auth-signing-key", IDP_CLIENT_SECRET: "/shop/prod/idp-client-secret" };
const logicalId = (name: string) => `${name.replace(/-/g, "Dash").replace(/^./, (c) => c.toUpperCase())}LambdaFunction`;

/** A serverless instance as packaging has it, with each function's resource running as `roles[name]`. */
function packaging(
  stage: string,
  functions: Record<string, Fn>,
  { roles = {} as Record<string, string>, kmsKeyArn = null as string | null, secrets = parameters as Record<string, string | null> } = {},
) {
  const resources: Record<string, { Type: string; Properties: Record<string, unknown> }> = {
    IamRoleLambdaExecution: {
      Type: "AWS::IAM::Role",
      Properties: { Policies: [{ PolicyName: "base", PolicyDocument: { Version: "2012-10-17", Statement: [] } }] },
    },
  };
  for (const name of Object.keys(functions)) {
    const role = roles[name] ?? "IamRoleLambdaExecution";
    resources[role] ??= { Type: "AWS::IAM::Role", Properties: {} };
    resources[logicalId(name)] = { Type: "AWS::Lambda::Function", Properties: { Role: { "Fn::GetAtt": [role, "Arn"] } } };
  }
  const serverless = {
    classes: { Error: ServerlessError },
    getProvider: () => ({ naming: { getLambdaLogicalId: logicalId } }),
    service: {
      custom: { secrets: { parameters: secrets, readers, kmsKeyArn } },
      provider: {
        stage,
        environment: { APP_SECRET: "value-from-the-shell", AUTH_SIGNING_KEY: "key-from-the-shell", TABLE_PREFIX: "shop-prod-" },
        compiledCloudFormationTemplate: { Resources: resources },
      },
      functions,
    },
  };
  const plugin = new SecretParametersPlugin(serverless as unknown as Serverless);
  return {
    serverless,
    resources,
    run: () => {
      plugin.hooks["before:package:initialize"]?.();
      plugin.hooks["before:aws:package:finalize:saveServiceState"]?.();
    },
  };
}

type Statement = { Action: string[]; Resource: unknown[]; Condition?: unknown };
const secretStatements = (role: { Properties: Record<string, unknown> } | undefined): Statement[] =>
  ((role?.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: { Statement: Statement[] } }[])
    .filter((p) => p.PolicyName === "secret-parameters")
    .flatMap((p) => p.PolicyDocument.Statement);
/** The logical id of the role the function's resource runs as. */
const roleOf = (resources: Record<string, { Properties: Record<string, unknown> }>, name: string): string =>
  (resources[logicalId(name)]?.Properties.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
const arn = (name: string) => ({ "Fn::Sub": `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}` });

describe("packaging a deployed stage's secrets", () => {
  it("gives each function the parameter names its handler reads, drops every value, and lets the role read those only", () => {
    const { serverless, resources, run } = packaging("prod", {
      "rest-post-query": { handler: "functions/rest.handler" },
      "rest-post-get": { handler: "functions/rest-read.handler", environment: { APP_SECRET: "per-function-value" } },
      "auth-email-login": { handler: "functions/auth.handler" },
    });
    run();
    const { functions, provider } = serverless.service;
    expect(provider.environment).toEqual({ TABLE_PREFIX: "shop-prod-" });
    expect(functions["rest-post-query"]?.environment).toEqual({ APP_SECRET_PARAMETER: "/shop/prod/app-secret" });
    expect(functions["rest-post-get"]?.environment).toEqual({});
    expect(functions["auth-email-login"]?.environment).toEqual({
      APP_SECRET_PARAMETER: "/shop/prod/app-secret",
      AUTH_SIGNING_KEY_PARAMETER: "/shop/prod/auth-signing-key",
      IDP_CLIENT_SECRET_PARAMETER: "/shop/prod/idp-client-secret",
    });
    // One shared role, three sets of secrets: the function that reads none keeps the role, with no
    // parameter; each other set runs as a copy of it that may read its parameters (by ARN) alone.
    expect(secretStatements(resources.IamRoleLambdaExecution)).toEqual([]);
    expect(roleOf(resources, "rest-post-get")).toBe("IamRoleLambdaExecution");
    expect(roleOf(resources, "rest-post-query")).toBe("IamRoleLambdaExecutionReadsAppSecret");
    expect(secretStatements(resources.IamRoleLambdaExecutionReadsAppSecret)).toEqual([
      { Effect: "Allow", Action: ["ssm:GetParameters", "ssm:GetParameter"], Resource: [arn("/shop/prod/app-secret")] },
    ]);
    const auth = roleOf(resources, "auth-email-login");
    expect(auth).toBe("IamRoleLambdaExecutionReadsAppSecretAuthSigningKeyIdpClientSecret");
    expect(secretStatements(resources[auth])).toEqual([
      {
        Effect: "Allow",
        Action: ["ssm:GetParameters", "ssm:GetParameter"],
        Resource: [arn("/shop/prod/app-secret"), arn("/shop/prod/auth-signing-key"), arn("/shop/prod/idp-client-secret")],
      },
    ]);
    // A copy is the role as it was (its trust, its other policies), plus its own parameters.
    expect(resources.IamRoleLambdaExecutionReadsAppSecret?.Properties.Policies).toEqual([
      ...(resources.IamRoleLambdaExecution?.Properties.Policies as unknown[]),
      {
        PolicyName: "secret-parameters",
        PolicyDocument: { Version: "2012-10-17", Statement: secretStatements(resources.IamRoleLambdaExecutionReadsAppSecret) },
      },
    ]);
  });

  it("never lets a function run as a role that may read a parameter it does not read, whatever shares the role", () => {
    const { resources, run } = packaging(
      "prod",
      {
        // Two sets on one role and none reading nothing: the first set keeps the role, the other gets a copy.
        "auth-jwks": { handler: "functions/auth.handler" },
        "rest-openapi": { handler: "functions/rest.handler" },
        "rest-fallback": { handler: "functions/rest.handler" },
        "rest-post-query": { handler: "functions/rest.handler" },
        "rest-post-get": { handler: "functions/rest-read.handler" },
      },
      {
        roles: {
          "auth-jwks": "LogsOnlyRole",
          "rest-openapi": "LogsOnlyRole",
          "rest-fallback": "LogsOnlyRole",
          "rest-post-query": "PostsRole",
          "rest-post-get": "PostsRole",
        },
      },
    );
    // A mapping that waits on the role for its function waits on the function's copy.
    resources.FallbackMapping = {
      Type: "AWS::Lambda::EventSourceMapping",
      Properties: { FunctionName: { "Fn::GetAtt": [logicalId("rest-fallback"), "Arn"] } },
      DependsOn: ["LogsOnlyRole"],
    } as (typeof resources)[string];
    run();
    const readable = (name: string) => secretStatements(resources[roleOf(resources, name)]).flatMap((s) => s.Resource);
    expect(readable("rest-openapi")).toEqual([arn("/shop/prod/app-secret")]);
    expect(readable("rest-fallback")).toEqual([arn("/shop/prod/app-secret")]);
    expect(readable("auth-jwks")).toHaveLength(3);
    expect(roleOf(resources, "rest-openapi")).toBe(roleOf(resources, "rest-fallback"));
    expect(roleOf(resources, "rest-openapi")).not.toBe(roleOf(resources, "auth-jwks"));
    expect(readable("rest-post-get")).toEqual([]);
    expect(readable("rest-post-query")).toEqual([arn("/shop/prod/app-secret")]);
    expect((resources.FallbackMapping as { DependsOn?: string[] }).DependsOn).toEqual([roleOf(resources, "rest-fallback")]);
  });

  it("grants each role only its own functions' parameters once functions run as roles of their own", () => {
    const { resources, run } = packaging(
      "prod",
      {
        "rest-post-query": { handler: "functions/rest.handler" },
        "rest-post-get": { handler: "functions/rest-read.handler" },
        "auth-email-login": { handler: "functions/auth.handler" },
      },
      { roles: { "rest-post-query": "PostsRole", "rest-post-get": "PostsReadRole", "auth-email-login": "AuthRole" } },
    );
    run();
    expect(secretStatements(resources.PostsRole)[0]?.Resource).toEqual([arn("/shop/prod/app-secret")]);
    expect(secretStatements(resources.PostsReadRole)).toEqual([]);
    expect(secretStatements(resources.AuthRole)[0]?.Resource).toHaveLength(3);
    expect(secretStatements(resources.IamRoleLambdaExecution)).toEqual([]);
  });

  it("adds kms:Decrypt through SSM only when a customer managed key is given", () => {
    const key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    const { resources, run } = packaging("prod", { "rest-post-query": { handler: "functions/rest.handler" } }, { kmsKeyArn: key });
    run();
    expect(secretStatements(resources.IamRoleLambdaExecution)[1]).toEqual({
      Effect: "Allow",
      Action: ["kms:Decrypt"],
      Resource: [key],
      Condition: { StringEquals: { "kms:ViaService": { "Fn::Sub": "ssm.${AWS::Region}.amazonaws.com" } } },
    });
  });

  it("refuses a handler the readers table does not name, an unknown secret, a bad name or a role outside the template", () => {
    expect(packaging("prod", { other: { handler: "functions/other.handler" } }).run).toThrow(
      /Function 'other' \(functions\/other\): serverless.yml custom.secrets.readers does not say which secrets it reads/,
    );
    expect(packaging("prod", { x: { handler: "functions/rest.handler" } }, { secrets: { ...parameters, APP_SECRET: "/shop/${x}" } }).run).toThrow(
      /is not a parameter name/,
    );
    const external = packaging("prod", { "rest-post-query": { handler: "functions/rest.handler" } });
    (external.resources[logicalId("rest-post-query")] as { Properties: Record<string, unknown> }).Properties.Role = "arn:aws:iam::123456789012:role/theirs";
    expect(external.run).toThrow(/runs as a role this template does not declare/);
  });

  it("leaves the local stage alone: npm start passes the values in the environment", () => {
    const { serverless, resources, run } = packaging("local", { "rest-post-query": { handler: "functions/rest.handler" } });
    run();
    expect(serverless.service.provider.environment.APP_SECRET).toBe("value-from-the-shell");
    expect(serverless.service.functions["rest-post-query"]?.environment).toBeUndefined();
    expect(secretStatements(resources.IamRoleLambdaExecution)).toEqual([]);
  });
});
