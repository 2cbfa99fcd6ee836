// @ts-check
// The edge of a deployed stage (docs/operating.md, "Edge protection"): access logs and throttling
// on both API stages, a source on every invoke permission, deletion protection on the tables,
// reserved concurrency where asked, and a retry policy and failure queue for the scheduled
// migration. Each function changes the compiled template in place.

/** @import { CfnResource, CfnResourceWithProperties, CfnTemplate } from "../../core/serverless-host.ts" */
/** @import { OperationsSettings } from "./settings.mjs" */

/** @type {(service: string, tail: unknown[]) => object} */
const partitionArn = (service, tail) => ({
  "Fn::Join": ["", ["arn:", { Ref: "AWS::Partition" }, `:${service}:`, { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, ":", ...tail]],
});

/** One JSON object a line; no path or query (a link's token rides in one), the route key instead. */
const HTTP_ACCESS_LOG = {
  requestId: "$context.requestId",
  ip: "$context.identity.sourceIp",
  requestTime: "$context.requestTime",
  httpMethod: "$context.httpMethod",
  routeKey: "$context.routeKey",
  status: "$context.status",
  protocol: "$context.protocol",
  responseLength: "$context.responseLength",
  responseLatency: "$context.responseLatency",
  integrationLatency: "$context.integrationLatency",
  integrationError: "$context.integrationErrorMessage",
  userAgent: "$context.identity.userAgent",
};
const WEBSOCKET_ACCESS_LOG = {
  requestId: "$context.requestId",
  ip: "$context.identity.sourceIp",
  requestTime: "$context.requestTime",
  eventType: "$context.eventType",
  routeKey: "$context.routeKey",
  status: "$context.status",
  connectionId: "$context.connectionId",
  integrationLatency: "$context.integrationLatency",
  error: "$context.error.message",
};

/** The routes whose tighter throttle is `authThrottle*`: the auth routes that take a credential or mail a link. */
export const isAuthRoute = (/** @type {string} */ routeKey) => /^POST \/auth\//.test(routeKey);

/**
 * @param {Record<string, CfnResource>} resources
 * @param {string} apiId
 * @returns {[string, CfnResourceWithProperties][]}
 */
const stagesOf = (resources, apiId) => withProperties(resources).filter(([, r]) => r.Type === "AWS::ApiGatewayV2::Stage" && r.Properties.ApiId?.Ref === apiId);

/**
 * The resources that have properties: the ones these steps change.
 * @param {Record<string, CfnResource>} resources
 * @returns {[string, CfnResourceWithProperties][]}
 */
function withProperties(resources) {
  return Object.entries(resources).flatMap(([id, r]) => (r.Properties === undefined ? [] : [[id, /** @type {CfnResourceWithProperties} */ (r)]]));
}

/**
 * @param {CfnResource} resource
 * @param {string[]} ids
 */
function dependOn(resource, ids) {
  const deps = new Set([resource.DependsOn ?? []].flat());
  for (const id of ids) deps.add(id);
  if (deps.size > 0) resource.DependsOn = [...deps].sort();
}

/**
 * Access logs of both stages into log groups of their own (`/aws/http-api/<service>-<stage>`,
 * `/aws/websocket/<service>-<stage>`). A WebSocket stage logs through the account's API Gateway
 * CloudWatch role: created here unless `apiGatewayLogsRole: existing` says the account has one.
 * @param {CfnTemplate} template
 * @param {OperationsSettings} settings
 * @param {{ httpApi?: string, websocketApi?: string, logPrefix: string }} apis
 */
export function addAccessLogs(template, settings, { httpApi, websocketApi, logPrefix }) {
  if (!settings.edge.accessLogs) return;
  const resources = template.Resources;
  const retention = settings.logRetentionDays === undefined ? {} : { RetentionInDays: settings.logRetentionDays };
  /** @type {[string | undefined, string, string, object][]} */
  const apis = [
    [httpApi, "HttpApiAccessLogGroup", `/aws/http-api/${logPrefix}`, HTTP_ACCESS_LOG],
    [websocketApi, "WebsocketsAccessLogGroup", `/aws/websocket/${logPrefix}`, WEBSOCKET_ACCESS_LOG],
  ];
  for (const [api, groupId, name, format] of apis) {
    if (!api) continue;
    resources[groupId] = { Type: "AWS::Logs::LogGroup", Properties: { LogGroupName: name, ...retention } };
    for (const [, stage] of stagesOf(resources, api)) {
      stage.Properties.AccessLogSettings = { DestinationArn: { "Fn::GetAtt": [groupId, "Arn"] }, Format: JSON.stringify(format) };
      dependOn(stage, [groupId]);
    }
  }
  if (websocketApi && settings.edge.apiGatewayLogsRole === "create") {
    resources.ApiGatewayLogsRole = {
      Type: "AWS::IAM::Role",
      Properties: {
        AssumeRolePolicyDocument: {
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Principal: { Service: "apigateway.amazonaws.com" }, Action: "sts:AssumeRole" }],
        },
        // AWS's managed policy for this one purpose: API Gateway names its own log groups.
        ManagedPolicyArns: [{ "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs" }],
      },
    };
    resources.ApiGatewayAccount = { Type: "AWS::ApiGateway::Account", Properties: { CloudWatchRoleArn: { "Fn::GetAtt": ["ApiGatewayLogsRole", "Arn"] } } };
    for (const [, stage] of stagesOf(resources, websocketApi)) dependOn(stage, ["ApiGatewayAccount"]);
  }
}

/**
 * Stage throttles (requests per second and burst), and the tighter one on the auth routes.
 * @param {CfnTemplate} template
 * @param {OperationsSettings} settings
 * @param {{ httpApi?: string, websocketApi?: string }} apis
 */
export function addThrottling(template, settings, { httpApi, websocketApi }) {
  const resources = template.Resources;
  const { throttleRate, throttleBurst, authThrottleRate, authThrottleBurst } = settings.edge;
  const limits = (/** @type {number | undefined} */ rate, /** @type {number | undefined} */ burst) => ({
    ...(burst === undefined ? {} : { ThrottlingBurstLimit: burst }),
    ...(rate === undefined ? {} : { ThrottlingRateLimit: rate }),
  });
  const stageLimits = limits(throttleRate, throttleBurst);
  for (const api of [httpApi, websocketApi]) {
    if (!api) continue;
    for (const [, stage] of stagesOf(resources, api)) stage.Properties.DefaultRouteSettings = { ...stage.Properties.DefaultRouteSettings, ...stageLimits };
  }
  const authLimits = limits(authThrottleRate, authThrottleBurst);
  if (!httpApi || Object.keys(authLimits).length === 0) return;
  const routes = withProperties(resources).filter(
    ([, r]) => r.Type === "AWS::ApiGatewayV2::Route" && r.Properties.ApiId?.Ref === httpApi && isAuthRoute(String(r.Properties.RouteKey)),
  );
  if (routes.length === 0) return;
  for (const [, stage] of stagesOf(resources, httpApi)) {
    stage.Properties.RouteSettings = { ...stage.Properties.RouteSettings, ...Object.fromEntries(routes.map(([, r]) => [r.Properties.RouteKey, authLimits])) };
    // A stage's route setting names a route that must exist first.
    dependOn(
      stage,
      routes.map(([id]) => id),
    );
  }
}

/**
 * Every invoke permission names its source: the framework's WebSocket permission names none, so
 * any API Gateway API of any account could invoke the function through it.
 * @param {CfnTemplate} template
 * @param {{ httpApi?: string, websocketApi?: string }} apis
 */
export function addSourceArns(template, { httpApi, websocketApi }) {
  for (const [id, resource] of withProperties(template.Resources)) {
    if (resource.Type !== "AWS::Lambda::Permission" || resource.Properties.SourceArn !== undefined) continue;
    if (resource.Properties.Principal !== "apigateway.amazonaws.com")
      throw new Error(`operations: the permission ${id} names no source and is not API Gateway's`);
    const api = websocketApi && [resource.DependsOn ?? []].flat().includes(websocketApi) ? websocketApi : httpApi;
    if (!api) throw new Error(`operations: the permission ${id} names no source and no API is there to name`);
    resource.Properties.SourceArn = partitionArn("execute-api", [{ Ref: api }, "/*"]);
  }
}

/**
 * @param {CfnTemplate} template
 * @param {OperationsSettings} settings
 */
export function addDeletionProtection(template, settings) {
  if (!settings.edge.tableDeletionProtection) return;
  for (const [, resource] of withProperties(template.Resources)) {
    if (resource.Type === "AWS::DynamoDB::Table") resource.Properties.DeletionProtectionEnabled = true;
  }
}

/**
 * Reserved concurrency where a parameter asks for it (off by default: see docs/operating.md).
 * @param {CfnTemplate} template
 * @param {OperationsSettings} settings
 * @param {{ streamFunction?: string, wsFunction?: string }} functions
 */
export function addReservedConcurrency(template, settings, { streamFunction, wsFunction }) {
  const resources = template.Resources;
  /** @type {[string | undefined, number | undefined][]} */
  const asked = [
    [streamFunction, settings.edge.streamReservedConcurrency],
    [wsFunction, settings.edge.wsReservedConcurrency],
  ];
  for (const [id, value] of asked) {
    const properties = id === undefined ? undefined : resources[id]?.Properties;
    if (properties && value !== undefined) properties.ReservedConcurrentExecutions = value;
  }
}

/** How long a scheduled run may wait for a retry: the next hourly run continues anyway. */
const MIGRATION_EVENT_AGE = 3600;

/**
 * The scheduled migration's two ways to fail, both into one queue: EventBridge cannot deliver the
 * event (its target's retry policy, then the dead-letter queue), or Lambda took the event and the
 * run failed (the asynchronous invocation's retry, then its failure destination). Returns the
 * queue's logical id, or undefined when the function has no schedule.
 * @param {CfnTemplate} template
 * @param {string | undefined} migrateFunction
 * @returns {string | undefined}
 */
export function addMigrationFailureQueue(template, migrateFunction) {
  const resources = template.Resources;
  const fn = migrateFunction === undefined ? undefined : resources[migrateFunction];
  if (!fn) return undefined;
  const rules = withProperties(resources).filter(
    ([, r]) =>
      r.Type === "AWS::Events::Rule" &&
      (r.Properties.Targets ?? []).some((/** @type {{ Arn?: { "Fn::GetAtt"?: unknown[] } }} */ t) => t.Arn?.["Fn::GetAtt"]?.[0] === migrateFunction),
  );
  if (rules.length === 0) return undefined;
  const queue = "MigrationFailuresQueue";
  const queueArn = { "Fn::GetAtt": [queue, "Arn"] };
  // Fourteen days, SQS's longest: time to read why a run failed.
  resources[queue] = { Type: "AWS::SQS::Queue", Properties: { MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true } };
  resources.MigrationFailuresQueuePolicy = {
    Type: "AWS::SQS::QueuePolicy",
    Properties: {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Version: "2012-10-17",
        Statement: rules.map(([ruleId]) => ({
          Effect: "Allow",
          Principal: { Service: "events.amazonaws.com" },
          Action: "sqs:SendMessage",
          Resource: queueArn,
          Condition: { ArnEquals: { "aws:SourceArn": { "Fn::GetAtt": [ruleId, "Arn"] } } },
        })),
      },
    },
  };
  for (const [, rule] of rules) {
    for (const target of rule.Properties.Targets) {
      if (target.Arn?.["Fn::GetAtt"]?.[0] !== migrateFunction) continue;
      target.RetryPolicy = { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: MIGRATION_EVENT_AGE };
      target.DeadLetterConfig = { Arn: queueArn };
    }
  }
  const role = fn.Properties?.Role?.["Fn::GetAtt"]?.[0];
  if (!role) throw new Error(`operations: ${migrateFunction}'s role is not one of the template: its failure destination cannot be granted`);
  // The failure destination is written with the function's own role.
  resources.MigrationFailureDestinationPolicy = {
    Type: "AWS::IAM::Policy",
    Properties: {
      PolicyName: "migration-failure-destination",
      Roles: [{ Ref: role }],
      PolicyDocument: { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArn }] },
    },
  };
  resources.MigrationEventInvokeConfig = {
    Type: "AWS::Lambda::EventInvokeConfig",
    // Lambda checks that the role may send to the destination when the configuration is written.
    DependsOn: ["MigrationFailureDestinationPolicy"],
    Properties: {
      FunctionName: { Ref: migrateFunction },
      Qualifier: "$LATEST",
      // One retry: a run stops before its time limit and the next scheduled run continues.
      MaximumRetryAttempts: 1,
      MaximumEventAgeInSeconds: MIGRATION_EVENT_AGE,
      DestinationConfig: { OnFailure: { Destination: queueArn } },
    },
  };
  return queue;
}
