// @ts-check
// A local serverless plugin: the secrets of a deployed stage come from SSM Parameter Store
// (./secrets.mjs, docs/deploying.md "Secrets"). Packaging a deployed stage
//   - drops every secret value the environment may have resolved (a value in the operator's shell),
//   - gives each function the names of the parameters its handler reads (serverless.yml
//     `custom.secrets.readers`), and no other,
//   - lets the role each such function runs as read those parameters only, and no function run as
//     a role that may read a parameter the function does not read (functions sharing a role but
//     not their secrets are given copies of it, one per set of secrets).
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
    const roleId = this.templateRoleOf(functionName, resources);
    if (roleId === undefined) {
      const role = resources[this.serverless.getProvider("aws").naming.getLambdaLogicalId(functionName)]?.Properties?.Role;
      throw new this.serverless.classes.Error(
        `Function '${functionName}' reads secret parameters but runs as a role this template does not declare (${JSON.stringify(role)}): grant it ssm:GetParameters on them yourself`,
      );
    }
    return roleId;
  }

  /**
   * The role a function's resource runs as, if it is a role of this template: undefined otherwise.
   * @param {string} functionName
   * @param {Record<string, CfnResource>} resources
   * @returns {string | undefined}
   */
  templateRoleOf(functionName, resources) {
    const logicalId = this.serverless.getProvider("aws").naming.getLambdaLogicalId(functionName);
    const role = resources[logicalId]?.Properties?.Role;
    const roleId = Array.isArray(role?.["Fn::GetAtt"]) && role["Fn::GetAtt"][1] === "Arn" ? role["Fn::GetAtt"][0] : undefined;
    return roleId !== undefined && resources[roleId]?.Type === "AWS::IAM::Role" ? roleId : undefined;
  }

  /**
   * Lets each role read the parameters its functions read, and no function run as a role that
   * may read a parameter it does not: functions that share a role (by kind and route group, or the
   * logs-only role) but read different secrets are given copies of it, one per set of secrets,
   * named after them (`LogsOnlyRoleReadsAppSecret`); the functions that read none keep the role as
   * it was, with no parameter at all.
   */
  grantReads() {
    if (!isDeployedStage(this.serverless)) return;
    const { parameters, kmsKeyArn } = secretsConfig(this.serverless);
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    const naming = this.serverless.getProvider("aws").naming;
    /** @type {Map<string, Map<string, { secrets: SecretName[], functions: string[] }>>} role -> secrets read -> functions */
    const byRole = new Map();
    for (const [name, fn] of Object.entries(this.serverless.service.functions ?? {})) {
      const secrets = SECRETS.filter((s) => fn.environment?.[s.environment] !== undefined && parameters[s.name] !== undefined).map((s) => s.name);
      const roleId = secrets.length === 0 ? this.templateRoleOf(name, resources) : this.roleOf(name, resources);
      if (roleId === undefined) continue;
      const sets = byRole.get(roleId) ?? new Map();
      const key = secrets.join(",");
      sets.set(key, { secrets, functions: [...(sets.get(key)?.functions ?? []), name] });
      byRole.set(roleId, sets);
    }
    /** @type {[string, SecretName[]][]} */
    const grants = [];
    for (const [roleId, sets] of byRole) {
      // The functions reading nothing keep the role (with no parameter); otherwise the first set does.
      const keys = [...sets.keys()].sort();
      const keeper = sets.has("") ? "" : keys[0];
      for (const key of keys) {
        const { secrets, functions } = /** @type {{ secrets: SecretName[], functions: string[] }} */ (sets.get(key));
        if (secrets.length === 0) continue;
        // Copied before any grant: a copy never carries another set's parameters.
        const target =
          key === keeper
            ? roleId
            : this.copyRole(
                resources,
                roleId,
                secrets,
                functions.map((f) => naming.getLambdaLogicalId(f)),
              );
        grants.push([target, secrets]);
      }
    }
    for (const [target, secrets] of grants) {
      this.grant(
        /** @type {CfnResource} */ (resources[target]),
        secrets.map((s) => /** @type {string} */ (parameters[s])),
        kmsKeyArn,
      );
    }
  }

  /**
   * A copy of `roleId` for the functions `functionIds`, which then run as it (and whatever waits on
   * the role for them, a stream's event source mapping, waits on the copy).
   * @param {Record<string, CfnResource>} resources
   * @param {string} roleId
   * @param {SecretName[]} secrets
   * @param {string[]} functionIds
   */
  copyRole(resources, roleId, secrets, functionIds) {
    const pascal = (/** @type {string} */ name) =>
      name
        .toLowerCase()
        .split("_")
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join("");
    const copyId = `${roleId}Reads${secrets.map(pascal).join("")}`;
    if (resources[copyId] !== undefined)
      throw new this.serverless.classes.Error(`Cannot give ${functionIds.join(", ")} a role of their own: ${copyId} already names a resource`);
    resources[copyId] = JSON.parse(JSON.stringify(resources[roleId]));
    const repoint = (/** @type {CfnResource} */ resource) => {
      if (resource.DependsOn !== undefined) resource.DependsOn = [resource.DependsOn].flat().map((d) => (d === roleId ? copyId : d));
    };
    for (const functionId of functionIds) {
      const fn = /** @type {CfnResource} */ (resources[functionId]);
      (fn.Properties ??= {}).Role = { "Fn::GetAtt": [copyId, "Arn"] };
      repoint(fn);
    }
    // An event source mapping waits on its function's role: AWS checks it when creating the mapping.
    for (const resource of Object.values(resources)) {
      if (functionIds.includes(resource.Properties?.FunctionName?.["Fn::GetAtt"]?.[0])) repoint(resource);
    }
    return copyId;
  }

  /**
   * The role's right to read `names`, and to decrypt them through SSM under a customer managed key.
   * @param {CfnResource} resource
   * @param {string[]} names
   * @param {string | undefined} kmsKeyArn
   */
  grant(resource, names, kmsKeyArn) {
    const arns = [...new Set(names)].sort().map(parameterArn);
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
    const role = (resource.Properties ??= {});
    role.Policies = [...(role.Policies ?? []), { PolicyName: "secret-parameters", PolicyDocument: { Version: "2012-10-17", Statement: statements } }];
  }
}
