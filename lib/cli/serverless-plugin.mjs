// @ts-check
// A local serverless plugin: refuses to package from a stale schema-cache/, keeps every stack
// under CloudFormation's 500-resources limit (shared log groups, nested stacks by route group:
// ./stacks/), and scopes the WebSocket management permission the framework grants on every API of
// every account to this stack's API. Plain JS (checked by tsc through its JSDoc types) because the
// Serverless CLI loads plugins itself; the check runs the TypeScript CLI through tsx.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assignFunctionRoles } from "./stacks/function-roles.mjs";
import { isDeployedStage, refuseValueParams, secretsConfig } from "./secrets/secrets.mjs";
import { publicKeysProblem } from "./secrets/public-keys.mjs";
import { shapeTemplate, uploadNestedTemplates } from "./stacks/package-hooks.mjs";
import { acceptedTables, planDeploy } from "./plan/deploy.mjs";
/** @import { Serverless, ServerlessLog, ServerlessOptions, ServerlessPlugin } from "../core/serverless-host.ts" */

/** @implements {ServerlessPlugin} */
export default class SchemaCachePlugin {
  /**
   * @param {Serverless} serverless
   * @param {ServerlessOptions} [_options]
   * @param {{ log?: ServerlessLog }} [utils]
   */
  constructor(serverless, _options, { log } = {}) {
    this.serverless = serverless;
    /** @type {ServerlessLog} */
    this.log = log ?? { warning: (m) => console.warn(m), notice: (m) => console.log(m) };
    this.hooks = {
      "before:package:initialize": () => {
        this.checkCache();
        this.checkSecret();
        this.checkSigningKey();
      },
      // Once every event has added its statements: each function's own role (./stacks/function-roles.mjs).
      "after:package:compileEvents": () => {
        this.scopeManageConnections();
        this.assignRoles();
      },
      // After the tables and hand-written resources are merged, before the template is saved.
      "before:aws:package:finalize:saveServiceState": () => this.shapeStacks(),
      "after:aws:deploy:deploy:uploadArtifacts": () => uploadNestedTemplates(this.serverless),
      // Before the template is hashed and uploaded: the tables' plan against the deployed stack.
      "before:aws:deploy:deploy:checkForChanges": () => this.planTables(),
    };
  }

  checkCache() {
    if (process.env.SKIP_SCHEMA_CACHE_CHECK === "true") return;
    const result = spawnSync(process.execPath, ["--import", "tsx", "lib/cli/main.ts", "check"], {
      cwd: this.serverless.serviceDir,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      const message = (result.stderr || result.stdout || "schema-cache check failed").trim();
      throw new this.serverless.classes.Error(message);
    }
  }

  /**
   * A deployed stage seals continuation tokens with its own secret, read from SSM Parameter Store
   * at cold start: packaging needs the parameter's NAME, and refuses the value itself.
   */
  checkSecret() {
    if (!isDeployedStage(this.serverless)) return;
    refuseValueParams(this.serverless, ["APP_SECRET"]);
    if (secretsConfig(this.serverless).parameters.APP_SECRET) return;
    throw new this.serverless.classes.Error(
      `Stage '${this.serverless.service.provider.stage}' needs the SSM parameter holding its application secret (a SecureString of at least 32 characters): --param appSecretParameter=/${this.serverless.service.service}/${this.serverless.service.provider.stage}/app-secret (docs/deploying.md, "Secrets")`,
    );
  }

  /**
   * Access tokens are signed with the stage's own Ed25519 key, never one generated on the fly: its
   * SSM parameter's NAME (the functions that issue credentials read it at cold start, where its
   * shape is checked), and its public halves for the functions that only verify.
   */
  checkSigningKey() {
    if (!isDeployedStage(this.serverless)) return;
    const stage = this.serverless.service.provider.stage;
    refuseValueParams(this.serverless, ["AUTH_SIGNING_KEY"]);
    /** @type {string[]} */
    const missing = [];
    if (!secretsConfig(this.serverless).parameters.AUTH_SIGNING_KEY) {
      missing.push(
        `  --param authSigningKeyParameter=/${this.serverless.service.service}/${stage}/auth-signing-key   the SSM SecureString holding the Ed25519 private JWK (npx webda keygen)`,
      );
    }
    const published = this.serverless.service.provider.environment?.AUTH_PUBLIC_KEYS;
    const problem = publicKeysProblem(published);
    if (problem) missing.push(`  --param authPublicKeys="$(npx webda keygen --public < key.jwk)"   ${problem}`);
    if (missing.length > 0)
      throw new this.serverless.classes.Error(`Stage '${stage}' needs its access-token keys (docs/deploying.md, "Secrets"):\n${missing.join("\n")}`);
  }

  /** One role per function kind and route group, as schema-cache/roles.json says (docs/deploying.md, "Roles"). */
  assignRoles() {
    const map = JSON.parse(readFileSync(join(this.serverless.serviceDir, "schema-cache", "roles.json"), "utf8"));
    const provider = this.serverless.getProvider("aws");
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    assignFunctionRoles(template, this.serverless.service.functions, map, (name) => provider.naming.getLambdaLogicalId(name));
  }

  // The websocket event adds `execute-api:ManageConnections` on `execute-api:*:*:*` + `/@connections/*`
  // (any API, any region, any account). Our functions only post to this stack's API: the statement
  // is narrowed to it (schema-cache/roles.json grants the same to the roles that post, so the duplicate is dropped).
  scopeManageConnections() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate?.Resources ?? {};
    const scoped = { "Fn::Sub": "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${WebsocketsApi}/*/*/@connections/*" };
    for (const resource of Object.values(resources)) {
      if (resource.Type !== "AWS::IAM::Role") continue;
      for (const policy of resource.Properties?.Policies ?? []) {
        /** @type {Set<string>} */
        const seen = new Set();
        policy.PolicyDocument.Statement = policy.PolicyDocument.Statement.flatMap((/** @type {{ Resource?: unknown }} */ statement) => {
          const wildcard = JSON.stringify(statement.Resource ?? "").includes("execute-api:*:*:*");
          const next = wildcard ? { ...statement, Resource: [scoped] } : statement;
          const key = JSON.stringify(next);
          if (seen.has(key)) return [];
          seen.add(key);
          return [next];
        });
      }
    }
  }

  /**
   * Compares the tables about to be deployed with the deployed stack's (GetTemplate): a change no
   * update can carry out stops the deploy before CloudFormation is asked, and several index
   * changes on a table deploy one step (./plan/, docs/changing-a-deployed-application.md).
   */
  async planTables() {
    const provider = /** @type {import("./plan/deploy.mjs").DeployProvider} */ (/** @type {unknown} */ (this.serverless.getProvider("aws")));
    const stage = provider.getStage();
    /** @type {import("../core/serverless-host.ts").CfnTemplate | undefined} */
    let deployed;
    try {
      const { TemplateBody } = await provider.request("CloudFormation", "getTemplate", {
        StackName: provider.naming.getStackName(),
        TemplateStage: "Original",
      });
      deployed = typeof TemplateBody === "string" ? JSON.parse(TemplateBody) : undefined;
    } catch (error) {
      // A first deploy has no stack yet: nothing deployed to compare with.
      if (!/does not exist/i.test(String(/** @type {Error} */ (error)?.message))) throw error;
    }
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const deploy = `serverless deploy --stage ${stage}`;
    const result = planDeploy(deployed, template, { accept: acceptedTables(this.serverless), deploy });
    for (const line of result.lines) this.log.notice(line);
    if (result.refused)
      throw new this.serverless.classes.Error(`The tables' plan refuses this deploy (above): nothing was deployed. docs/changing-a-deployed-application.md`);
    this.serverless.service.provider.compiledCloudFormationTemplate = result.template;
  }

  async shapeStacks() {
    const { before, shared, policies, limit, counts } = await shapeTemplate(this.serverless);
    const [, root] = counts[0];
    const nested = counts.length > 1 ? `; ${counts.length - 1} nested stacks of at most ${Math.max(...counts.slice(1).map(([, n]) => n))}` : "";
    this.log.notice(
      `CloudFormation: ${before} resources, ${shared} log groups shared, ${policies} managed policies, root stack ${root} (split above ${limit})${nested}`,
    );
    // The routes have left the root; what stays (tables, hand-written resources) is near the wall.
    if (root > limit)
      this.log.warning(
        `The root stack keeps ${root} CloudFormation resources though its routes moved to nested stacks (limit 500): its tables and hand-written resources are what is left.`,
      );
  }
}
