// @ts-check
// What a deployed stage's service configuration must say before anything is packaged
// (docs/operating.md): where its alarms go, its tags, and which routes stay with `npm start`.
/** @import { ServerlessEvent, ServerlessService } from "../../core/serverless-host.ts" */
/** @import { OperationsSettings } from "./settings.mjs" */

/** `local` is `npm start`'s stage; serverless offline sets IS_OFFLINE whatever the stage. */
export const isDeployedStage = (/** @type {string} */ stage, env = process.env) => stage !== "local" && env.IS_OFFLINE !== "true";

/**
 * Why the stage cannot be packaged, or undefined when it can.
 * @param {Pick<OperationsSettings, "alarmTopicArn" | "alarmEmail">} settings
 * @param {string} stage
 * @param {string} [region]
 * @returns {string | undefined}
 */
export function destinationProblem(settings, stage, region) {
  const topicRegion = settings.alarmTopicArn?.split(":")[3];
  // An alarm notifies topics of its own region only: another region's would never hear from it.
  if (topicRegion !== undefined && region !== undefined && topicRegion !== region) {
    return `Stage '${stage}' deploys to ${region} but its alarmTopicArn is a topic of ${topicRegion}: alarms notify topics of their own region only`;
  }
  if (settings.alarmTopicArn !== undefined || settings.alarmEmail !== undefined) return undefined;
  return (
    `Stage '${stage}' needs an alarm destination, or its alarms reach nobody:\n` +
    "  --param alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>   an SNS topic the alarms notify\n" +
    "  --param alarmEmail=ops@example.com   an address the stack subscribes through a topic of its own (confirm the mail AWS sends)"
  );
}

/**
 * Drops the HTTP events whose path `drop` matches, and a function left without any event that
 * had some. Returns the names of the functions removed.
 * @param {Record<string, { events?: ServerlessEvent[] }>} functions
 * @param {(path: string) => boolean} drop
 */
function dropRoutes(functions, drop) {
  /** @type {string[]} */
  const removed = [];
  for (const [name, fn] of Object.entries(functions)) {
    const before = fn.events ?? [];
    if (before.length === 0) continue;
    const after = before.filter((e) => {
      const http = e?.httpApi;
      // `httpApi: "GET /path"` or `{ method, path }`; the catch-all `"*"` is no route of theirs.
      const path = typeof http === "string" ? http.split(" ").at(-1) : http?.path;
      return path === undefined || path === "*" || !drop(String(path));
    });
    if (after.length === before.length) continue;
    if (after.length === 0) {
      delete functions[name];
      removed.push(name);
    } else fn.events = after;
  }
  return removed;
}

/**
 * Tags (stack tags reach every resource CloudFormation can tag; function tags are in the template
 * too), and GraphiQL and the test services' routes out unless asked for. The functions learn what
 * is gone from their environment: the GraphQL function stops redirecting to GraphiQL, and no
 * function builds the test services (so the catch-all answers their paths 404).
 * @param {Pick<ServerlessService, "service"> & { functions?: Record<string, { events?: ServerlessEvent[] }>, provider: Pick<ServerlessService["provider"], "environment" | "stackTags" | "tags"> }} service
 * @param {Pick<OperationsSettings, "tags" | "graphiql" | "testRoutes" | "testServices">} settings
 * @param {string} stage
 * @returns {string[]} the names of the functions removed
 */
export function prepareDeployedService(service, settings, stage) {
  const tags = { service: service.service, stage, ...settings.tags };
  service.provider.stackTags = { ...service.provider.stackTags, ...tags };
  service.provider.tags = { ...service.provider.tags, ...tags };
  const functions = service.functions ?? {};
  const environment = (service.provider.environment ??= {});
  /** @type {string[]} */
  const removed = [];
  if (!settings.graphiql) {
    removed.push(...dropRoutes(functions, (path) => path === "/graphiql" || path.startsWith("/graphiql/")));
    environment.GRAPHIQL = "false";
  }
  if (!settings.testRoutes && settings.testServices.length > 0) {
    const prefixes = settings.testServices.map((name) => `/${name.toLowerCase()}`);
    removed.push(...dropRoutes(functions, (path) => prefixes.some((p) => path.toLowerCase() === p || path.toLowerCase().startsWith(`${p}/`))));
    environment.DISABLED_SERVICES = settings.testServices.join(",");
  }
  return removed;
}
