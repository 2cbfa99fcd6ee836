// @ts-check
// A local serverless plugin: the secrets of a deployed stage come from SSM Parameter Store
// (./secrets.mjs, docs/deploying.md "Secrets"). Packaging a deployed stage
//   - drops every secret value the environment may have resolved (a value in the operator's shell),
//   - gives each function the names of the parameters its handler reads (serverless.yml
//     `custom.secrets.readers`), and no other,
//   - lets the role each such function runs as read those parameters only.
// Listed before ../serverless-plugin.mjs: its statements must be in the roles before that plugin
// fits role policies and splits the template into nested stacks.
import { isDeployedStage, parameterArn, SECRETS, secretsConfig } from "./secrets.mjs";
/** @import { CfnResource, Serverless, ServerlessFunction, ServerlessPlugin } from "../../core/serverless-host.ts" */
/** @import { SecretName } from "./secrets.mjs" */

const PARAMETER_NAME = /^(arn:[^:\s]+:ssm:[^:\s]+:\d{12}:parameter)?[A-Za-z0-9_.\-/]+$/;

/** @implements {ServerlessPlugin} */
export default class SecretParametersPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      "before:package:initialize": () => this.assignNames(),
      // After serverless.yml's resources are merged (roles may be declared there), before the template is saved.
      "before:aws:package:finalize:saveServiceState": () => this.grantReads(),
    };
  }

  /**
   * Each function's handler module (`functions/auth` of `functions/auth.handler`).
   * @param {ServerlessFunction} fn
   */
  handlerModule(fn) {
    return String(fn.handler ?? "").replace(/\.[^./]+$/, "");
  }

  /**
   * The secrets a function's handler reads; a handler the table does not name is refused, never guessed.
   * @param {string} name
   * @param {ServerlessFunction} fn
   * @param {Record<string, unknown>} readers
   * @returns {SecretName[]}
   */
  secretsOf(name, fn, readers) {
    const module = this.handlerModule(fn);
    const read = readers[module];
    if (!Array.isArray(read)) {
      throw new this.serverless.classes.Error(
        `Function '${name}' (${module}): serverless.yml custom.secrets.readers does not say which secrets it reads; list it, [] for none`,
      );
    }
    const unknown = read.filter((/** @type {unknown} */ secret) => !SECRETS.some((s) => s.name === secret));
    if (unknown.length > 0)
      throw new this.serverless.classes.Error(
        `custom.secrets.readers['${module}'] names unknown secrets: ${unknown.join(", ")} (known: ${SECRETS.map((s) => s.name).join(", ")})`,
      );
    return /** @type {SecretName[]} */ (read);
  }

  assignNames() {
    if (!isDeployedStage(this.serverless)) return;
    const { parameters, readers } = secretsConfig(this.serverless);
    for (const [secret, parameter] of Object.entries(parameters)) {
      if (parameter !== undefined && !PARAMETER_NAME.test(parameter)) {
        throw new this.serverless.classes.Error(
          `The SSM parameter name for ${secret} ('${parameter}') is not a parameter name: letters, digits, _ . - and /, or its ARN`,
        );
      }
    }
    const { provider } = this.serverless.service;
    const functions = this.serverless.service.functions ?? {};
    // Whatever resolved a value (a shell's APP_SECRET, say), no function of a deployed stage carries one.
    for (const environment of [provider.environment, ...Object.values(functions).map((fn) => fn.environment)]) {
      for (const { name } of SECRETS) if (environment) delete environment[name];
    }
    for (const [name, fn] of Object.entries(functions)) {
      for (const secret of this.secretsOf(name, fn, readers)) {
        const parameter = parameters[secret];
        if (parameter === undefined) continue;
        const { environment } = /** @type {(typeof SECRETS)[number]} */ (SECRETS.find((s) => s.name === secret));
        fn.environment = { ...fn.environment, [environment]: parameter };
      }
    }
  }

  /**
   * The role a function's resource runs as: `Fn::GetAtt [<role>, Arn]` of a role in this template.
   * @param {string} functionName
   * @param {Record<string, CfnResource>} resources
   * @returns {string}
   */
  roleOf(functionName, resources) {
    const logicalId = this.serverless.getProvider("aws").naming.getLambdaLogicalId(functionName);
    const role = resources[logicalId]?.Properties?.Role;
    const roleId = Array.isArray(role?.["Fn::GetAtt"]) && role["Fn::GetAtt"][1] === "Arn" ? role["Fn::GetAtt"][0] : undefined;
    if (!roleId || resources[roleId]?.Type !== "AWS::IAM::Role") {
      throw new this.serverless.classes.Error(
        `Function '${functionName}' reads secret parameters but runs as a role this template does not declare (${JSON.stringify(role)}): grant it ssm:GetParameters on them yourself`,
      );
    }
    return roleId;
  }

  grantReads() {
    if (!isDeployedStage(this.serverless)) return;
    const { parameters, kmsKeyArn } = secretsConfig(this.serverless);
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    /** @type {Map<string, Set<string>>} */
    const byRole = new Map();
    for (const [name, fn] of Object.entries(this.serverless.service.functions ?? {})) {
      const read = SECRETS.filter((s) => fn.environment?.[s.environment] !== undefined)
        .map((s) => parameters[s.name])
        .filter((parameter) => parameter !== undefined);
      if (read.length === 0) continue;
      const roleId = this.roleOf(name, resources);
      byRole.set(roleId, new Set([...(byRole.get(roleId) ?? []), ...read]));
    }
    for (const [roleId, names] of byRole) {
      const arns = [...names].sort().map(parameterArn);
      /** @type {object[]} */
      const statements = [{ Effect: "Allow", Action: ["ssm:GetParameters", "ssm:GetParameter"], Resource: arns }];
      // The default aws/ssm key needs nothing in the caller's policy; a customer key does.
      if (kmsKeyArn) {
        statements.push({
          Effect: "Allow",
          Action: ["kms:Decrypt"],
          Resource: [kmsKeyArn],
          Condition: { StringEquals: { "kms:ViaService": { "Fn::Sub": "ssm.${AWS::Region}.amazonaws.com" } } },
        });
      }
      const resource = /** @type {CfnResource} */ (resources[roleId]);
      const role = (resource.Properties ??= {});
      role.Policies = [...(role.Policies ?? []), { PolicyName: "secret-parameters", PolicyDocument: { Version: "2012-10-17", Statement: statements } }];
    }
  }
}
