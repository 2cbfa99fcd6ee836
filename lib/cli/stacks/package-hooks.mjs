// @ts-check
// The packaging side of "many models, one API" (docs/deploying.md, "What a stack holds"): once the
// framework has compiled the whole template, the route groups' functions share a log group each,
// a role whose inline policy passes IAM's size cap gets managed policies for the rest, and a
// template still above the limit is split into nested stacks whose templates are written next to
// the root one (and so land in `--package` directories and the deployment bucket).
import { createRequire } from "node:module";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { narrowLogStatements } from "./function-roles.mjs";
import { fitRolePolicies } from "./role-policies.mjs";
import { routeGroups } from "./route-groups.mjs";
import { shareLogGroups } from "./shared-log-groups.mjs";
import { ALARMS_GROUP, splitTemplate } from "./split.mjs";
/** @import { CfnTemplate, ConfigValue, Serverless } from "../../core/serverless-host.ts" */

/** CloudFormation refuses a stack of more resources than this. */
export const HARD_LIMIT = 500;
/** Split above this many resources unless `custom.nestedStacks.limit` says otherwise: room for what is added by hand. */
export const DEFAULT_LIMIT = 450;

const NESTED_FILE = /^cloudformation-template-nested-.+\.json$/;

/**
 * `custom.nestedStacks.limit`, checked: a whole number from 1 to 500.
 * @param {{ nestedStacks?: { limit?: unknown } } | undefined} custom
 * @returns {number}
 */
export function configuredLimit(custom) {
  const raw = custom?.nestedStacks?.limit;
  if (raw === undefined || raw === null || raw === "") return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > HARD_LIMIT) {
    throw new Error(`custom.nestedStacks.limit must be a whole number from 1 to ${HARD_LIMIT}, not ${JSON.stringify(raw)}`);
  }
  return limit;
}

/**
 * Where the deploy uploads a nested template: the deployment bucket, beside the function zips.
 * @param {CfnTemplate} template
 * @param {string | undefined} artifactDirectoryName
 * @returns {(file: string) => ConfigValue}
 */
function templateUrlFor(template, artifactDirectoryName) {
  const code = Object.values(template.Resources).find((r) => r.Type === "AWS::Lambda::Function" && r.Properties?.Code?.S3Bucket)?.Properties?.Code;
  const bucket = code?.S3Bucket;
  const host = typeof bucket === "string" ? bucket : bucket?.Ref ? `\${${bucket.Ref}}` : undefined;
  if (host === undefined) throw new Error("Cannot split the stack: the functions' deployment bucket is neither named nor a Ref");
  return (file) => ({ "Fn::Sub": `https://${host}.s3.\${AWS::Region}.\${AWS::URLSuffix}/${artifactDirectoryName}/${file}` });
}

/**
 * Shares log groups, splits when over the limit, writes the children, and refuses a stack that
 * would still pass CloudFormation's limit. Returns what it did, for the log.
 * @param {Serverless} serverless the Serverless instance, after the template is complete
 * @returns {Promise<{ before: number, shared: number, policies: number, limit: number, counts: [[string, number], ...[string, number][]] }>}
 */
export async function shapeTemplate(serverless) {
  const service = serverless.service;
  const provider = serverless.getProvider("aws");
  const template = service.provider.compiledCloudFormationTemplate;
  const limit = configuredLimit(service.custom);
  /** @type {Map<string, string>} */
  const groups = new Map();
  for (const [name, group] of routeGroups(service.functions)) groups.set(provider.naming.getLambdaLogicalId(name), group);

  const before = Object.keys(template.Resources).length;
  const shared = shareLogGroups(template, groups, `/aws/lambda/${service.service}-${provider.getStage()}`);
  // Each role may write the log groups of its own functions, now that they are known.
  narrowLogStatements(template);
  const policies = fitRolePolicies(template).length;
  const templateUrl = templateUrlFor(template, service.package.artifactDirectoryName);
  const children = splitTemplate(template, {
    groupOfFunction: groups,
    limit,
    templateUrl,
    description: (g) =>
      g === ALARMS_GROUP
        ? `${service.service} ${provider.getStage()}: the alarms on its tables, API, stream and metrics`
        : `${service.service} ${provider.getStage()}: the routes under /${g}`,
  });

  const dir = join(serverless.serviceDir, ".serverless");
  for (const stale of (await readdir(dir).catch(() => [])).filter((f) => NESTED_FILE.test(f))) await rm(join(dir, stale));
  if (children.length > 0) await mkdir(dir, { recursive: true });
  for (const child of children) await writeFile(join(dir, child.file), JSON.stringify(child.template, null, 2));

  /** @type {[[string, number], ...[string, number][]]} */
  const counts = [
    ["root", Object.keys(template.Resources).length],
    ...children.map((c) => /** @type {[string, number]} */ ([c.group, Object.keys(c.template.Resources).length])),
  ];
  const [over] = counts.filter(([, n]) => n > HARD_LIMIT);
  if (over !== undefined) {
    const [where, count] = over;
    throw new serverless.classes.Error(
      `The stack has ${count} CloudFormation resources in ${where === "root" ? "its root" : `the nested stack of /${where}`} (limit ${HARD_LIMIT}) though the routes moved to nested stacks: what stays in the root (tables, the API, hand-written resources) is too much.`,
    );
  }
  return { before, shared, policies, limit, counts };
}

/**
 * Uploads the nested templates beside the root one, under the deployment's artifact directory.
 * @param {Serverless} serverless
 * @returns {Promise<number>}
 */
export async function uploadNestedTemplates(serverless) {
  const service = serverless.service;
  if (service.provider.shouldNotDeploy) return 0;
  const provider = serverless.getProvider("aws");
  const dir = join(serverless.serviceDir, ".serverless");
  const files = (await readdir(dir).catch(() => [])).filter((f) => NESTED_FILE.test(f));
  if (files.length === 0) return 0;
  // The framework's own uploader (retries, the bucket's encryption settings); osls is pinned.
  const require = createRequire(join(serverless.serviceDir, "package.json"));
  /** @type {(provider: unknown, params: Record<string, unknown>) => Promise<unknown>} */
  const upload = require("serverless/lib/plugins/aws/lib/upload-s3-object.js");
  /** @type {(params: Record<string, unknown>, bucket: Record<string, unknown>) => Record<string, unknown>} */
  const setEncryption = require("serverless/lib/aws/set-s3-upload-encryption-options.js");
  const bucket = await provider.getServerlessDeploymentBucketName();
  for (const file of files) {
    /** @type {Record<string, unknown>} */
    let params = {
      Bucket: bucket,
      Key: `${service.package.artifactDirectoryName}/${file}`,
      Body: await readFile(join(dir, file), "utf8"),
      ContentType: "application/json",
    };
    if (service.provider.deploymentBucketObject) params = setEncryption(params, service.provider.deploymentBucketObject);
    await upload(provider, params);
  }
  return files.length;
}
