// @ts-check
// One log group per route group instead of one per function: every function of a model's routes
// writes to `/aws/lambda/<service>-<stage>/<group>` (Lambda's LoggingConfig.LogGroup). A group of
// N functions costs one resource instead of N. A log stream's name no longer says which function
// wrote it, but every request line names its route (one function's, per route) and request id
// (lib/http/handler.ts), and the metrics (errors, duration, throttles) stay per function.
//
// Retention and every other setting is taken from the groups it replaces: whatever sets them on
// the framework's per-function log groups (`provider.logRetentionInDays`, a deploy parameter, a
// plugin that runs before this one) sets them on the shared group. Functions whose groups differ
// in any setting (a function with its own retention) keep their own group.
import { dependsOn, rewriteReferences } from "./references.mjs";
import { pascal } from "./route-groups.mjs";
/** @import { CfnTemplate } from "../../core/serverless-host.ts" */

/**
 * @param {CfnTemplate} template the compiled template, changed in place
 * @param {Map<string, string>} groupOfFunction function logical id -> route group
 * @param {string} prefix the log group name prefix, `/aws/lambda/<service>-<stage>`
 * @returns {number} how many log groups were removed
 */
export function shareLogGroups(template, groupOfFunction, prefix) {
  const resources = template.Resources;
  /** @type {Map<string, { group: string, properties: object, members: [string, string][], deletionPolicy: string | undefined }>} */
  const buckets = new Map();
  for (const [functionId, group] of groupOfFunction) {
    const fn = resources[functionId];
    if (fn?.Type !== "AWS::Lambda::Function" || fn.Condition !== undefined) continue;
    if (fn.Properties?.LoggingConfig?.LogGroup !== undefined) continue; // chosen by its author
    const ownName = `/aws/lambda/${fn.Properties?.FunctionName}`;
    const logGroupId = dependsOn(fn).find((id) => resources[id]?.Type === "AWS::Logs::LogGroup" && resources[id].Properties?.LogGroupName === ownName);
    const logGroup = logGroupId === undefined ? undefined : resources[logGroupId];
    if (logGroupId === undefined || logGroup === undefined || logGroup.Condition !== undefined) continue;
    const { LogGroupName: _name, ...properties } = logGroup.Properties ?? {};
    const key = JSON.stringify([group, properties, logGroup.DeletionPolicy ?? null]);
    const bucket = buckets.get(key) ?? { group, properties, members: [], deletionPolicy: logGroup.DeletionPolicy };
    bucket.members.push([functionId, logGroupId]);
    buckets.set(key, bucket);
  }

  /** @type {Map<string, string>} */
  const replaced = new Map();
  /** @type {Map<string, number>} */
  const taken = new Map();
  for (const bucket of buckets.values()) {
    if (bucket.members.length < 2) continue; // one function: nothing to share
    const n = (taken.get(bucket.group) ?? 0) + 1;
    taken.set(bucket.group, n);
    const suffix = n === 1 ? "" : `-${n}`;
    const sharedId = `${pascal(bucket.group)}RoutesLogGroup${n === 1 ? "" : n}`;
    resources[sharedId] = {
      Type: "AWS::Logs::LogGroup",
      ...(bucket.deletionPolicy ? { DeletionPolicy: bucket.deletionPolicy } : {}),
      Properties: { LogGroupName: `${prefix}/${bucket.group.replace(/[^A-Za-z0-9._#/-]/g, "-")}${suffix}`, ...bucket.properties },
    };
    for (const [functionId, logGroupId] of bucket.members) {
      const properties = resources[functionId]?.Properties;
      if (properties) properties.LoggingConfig = { ...properties.LoggingConfig, LogGroup: { Ref: sharedId } };
      delete resources[logGroupId];
      replaced.set(logGroupId, sharedId);
    }
  }
  if (replaced.size === 0) return 0;

  // Anything else that named a removed group (a DependsOn, a metric filter) names the shared one.
  for (const [id, resource] of Object.entries(resources)) {
    const deps = dependsOn(resource);
    if (deps.some((d) => replaced.has(d))) resource.DependsOn = [...new Set(deps.map((d) => replaced.get(d) ?? d))];
    resources[id] = rewriteReferences(resource, (reference) => {
      const shared = replaced.get(reference.target);
      if (shared === undefined) return undefined;
      return reference.kind === "ref" ? { Ref: shared } : { "Fn::GetAtt": [shared, reference.attribute] };
    });
  }
  if (template.Outputs) {
    template.Outputs = rewriteReferences(template.Outputs, (reference) => {
      const shared = replaced.get(reference.target);
      if (shared === undefined) return undefined;
      return reference.kind === "ref" ? { Ref: shared } : { "Fn::GetAtt": [shared, reference.attribute] };
    });
  }
  return replaced.size;
}
