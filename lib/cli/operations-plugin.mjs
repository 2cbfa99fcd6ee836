// @ts-check
// A local serverless plugin: what a deployed stage needs to be run (docs/operating.md). Before
// packaging it refuses a deployed stage whose alarms would reach nobody, tags the stack and keeps
// GraphiQL and the test services' routes to `npm start` unless asked; once the template is
// compiled it sets the retention of every log group, turns X-Ray tracing on when asked, adds the
// alarms, the dashboard and the edge's protections. Its own file and hooks, apart from the
// template's other plugin, so that the two change independently; the pieces come from
// lib/cli/operations/.
import { alarmResources } from "./operations/alarms.mjs";
import { dashboardBody } from "./operations/dashboard.mjs";
import { destinationProblem, isDeployedStage, prepareDeployedService } from "./operations/deployed.mjs";
import { addAccessLogs, addDeletionProtection, addMigrationFailureQueue, addReservedConcurrency, addSourceArns, addThrottling } from "./operations/edge.mjs";
import { operationsSettings } from "./operations/settings.mjs";
/** @import { CfnTemplate, Serverless, ServerlessPlugin } from "../core/serverless-host.ts" */
/** @import { OperationsSettings } from "./operations/settings.mjs" */

/** @typedef {{ name: string, logicalId: string, timeout: number }} DeployedFunction */

// AWS's managed policy for sending traces: X-Ray's PutTraceSegments and PutTelemetryRecords take no
// resource ARN (IAM allows only "*" for them), so no statement of ours can be narrower.
const XRAY_POLICY = { "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess" };

/** @implements {ServerlessPlugin} */
export default class OperationsPlugin {
  /** @param {Serverless} serverless */
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      // Before anything is bundled or written: a refused stage leaves no package behind.
      "before:package:initialize": () => this.prepare(),
      // After the resources of serverless.yml (tables, the stream's failure queue) joined the
      // template, before it is written.
      "after:aws:package:finalize:mergeCustomProviderResources": () => this.apply(),
    };
  }

  settings() {
    try {
      return operationsSettings(this.serverless.service.custom?.operations);
    } catch (error) {
      throw new this.serverless.classes.Error(/** @type {Error} */ (error).message);
    }
  }

  get stage() {
    return this.serverless.service.provider.stage;
  }

  prepare() {
    const settings = this.settings();
    if (!isDeployedStage(this.stage)) return;
    const problem = destinationProblem(settings, this.stage, this.serverless.getProvider("aws").getRegion());
    if (problem !== undefined) throw new this.serverless.classes.Error(problem);
    prepareDeployedService(this.serverless.service, settings, this.stage);
  }

  apply() {
    const settings = this.settings();
    const service = this.serverless.service;
    const template = service.provider.compiledCloudFormationTemplate;
    addOperations(template, settings, {
      functions: this.functions(template),
      service: service.service,
      stage: this.stage,
      deployed: isDeployedStage(this.stage),
    });
    // The resource limit is the template splitter's to keep (lib/cli/stacks/, a later hook): it
    // moves each route group's alarms with its functions when the whole would pass it.
  }

  /**
   * @param {CfnTemplate} template
   * @returns {DeployedFunction[]}
   */
  functions(template) {
    const naming = this.serverless.getProvider("aws").naming;
    return this.serverless.service.getAllFunctions().map((name) => {
      const logicalId = naming.getLambdaLogicalId(name);
      return { name, logicalId, timeout: template.Resources[logicalId]?.Properties?.Timeout ?? 6 };
    });
  }
}

/** The resources whose properties the operations settings change. */
const OPERATED = new Set(["AWS::Logs::LogGroup", "AWS::Lambda::Function", "AWS::IAM::Role"]);

/** The alarm topic the stack creates for `alarmEmail`. */
export const ALARM_TOPIC = "AlarmTopic";

/**
 * Mutates `template`: retention, tracing, the edge's protections, the alarms and their topic, the
 * dashboard. `functions`: [{ name, logicalId, timeout }]; `deployed`: false for `local`, whose
 * template is never deployed. Exported for the template tests.
 * @param {CfnTemplate} template
 * @param {OperationsSettings} settings
 * @param {{ functions: DeployedFunction[], service: string, stage: string, deployed?: boolean }} context
 */
export function addOperations(template, settings, { functions, service, stage, deployed = true }) {
  const resources = template.Resources;
  for (const resource of Object.values(resources)) {
    if (!OPERATED.has(resource.Type)) continue;
    const properties = (resource.Properties ??= {});
    if (resource.Type === "AWS::Logs::LogGroup") {
      if (settings.logRetentionDays === undefined) delete properties.RetentionInDays;
      else properties.RetentionInDays = settings.logRetentionDays;
    }
    if (settings.tracing && resource.Type === "AWS::Lambda::Function") {
      properties.TracingConfig = { Mode: "Active" };
      // Read by lib/core/metrics.ts: the trace id goes on the log and metric lines.
      properties.Environment ??= { Variables: {} };
      properties.Environment.Variables.TRACING = "true";
    }
    if (!settings.metrics && resource.Type === "AWS::Lambda::Function") {
      // Read by lib/core/metrics.ts: the invocation writes no metric line.
      properties.Environment ??= { Variables: {} };
      properties.Environment.Variables.METRICS = "off";
    }
    if (settings.tracing && resource.Type === "AWS::IAM::Role") {
      properties.ManagedPolicyArns = [...(properties.ManagedPolicyArns ?? []), XRAY_POLICY];
    }
  }
  const present = (/** @type {string | undefined} */ id) => (id && id in resources ? id : undefined);
  const byName = (/** @type {string} */ name) => present(functions.find((fn) => fn.name === name)?.logicalId);
  const apis = {
    httpApi: present("HttpApi"),
    websocketApi: present(
      Object.keys(resources).find((id) => resources[id]?.Type === "AWS::ApiGatewayV2::Api" && resources[id]?.Properties?.ProtocolType === "WEBSOCKET"),
    ),
  };

  addSourceArns(template, apis);
  addThrottling(template, settings, apis);
  addAccessLogs(template, settings, { ...apis, logPrefix: `${service}-${stage}` });
  addReservedConcurrency(template, settings, { streamFunction: byName("stream"), wsFunction: byName("ws") });
  if (deployed) addDeletionProtection(template, settings);
  const migrationQueue = addMigrationFailureQueue(template, byName("authMigrate"));

  /** @type {unknown[]} */
  const destinations = [];
  if (settings.alarmTopicArn !== undefined) destinations.push(settings.alarmTopicArn);
  if (settings.alarmEmail !== undefined) {
    resources[ALARM_TOPIC] = {
      Type: "AWS::SNS::Topic",
      Properties: { DisplayName: `${service} ${stage} alarms`, Subscription: [{ Protocol: "email", Endpoint: settings.alarmEmail }] },
    };
    destinations.push({ Ref: ALARM_TOPIC });
  }
  const tables = Object.entries(resources)
    .filter(([, resource]) => resource.Type === "AWS::DynamoDB::Table")
    .map(([id, resource]) => ({
      id,
      indexes: /** @type {string[]} */ (
        (resource.Properties?.GlobalSecondaryIndexes ?? []).map((/** @type {{ IndexName: string }} */ index) => index.IndexName)
      ),
    }));
  Object.assign(
    resources,
    alarmResources(settings, {
      functions: functions.filter((fn) => fn.logicalId in resources),
      tables,
      ...apis,
      streamFunction: byName("stream"),
      failureQueue: present("StreamFailuresQueue"),
      fanoutQueue: present("FanoutQueue"),
      fanoutDeadLetters: present("FanoutDeadLetterQueue"),
      migrationQueue,
      // The functions may send mail (the mailer's SES grant): its reputation is the stage's to watch.
      sendsMail: JSON.stringify(template).includes('"ses:Send'),
      destinations,
    }),
  );
  if (settings.dashboard) {
    resources.OperationsDashboard = {
      Type: "AWS::CloudWatch::Dashboard",
      Properties: {
        DashboardName: { "Fn::Sub": "${AWS::StackName}" },
        DashboardBody: { "Fn::Sub": dashboardBody(settings.namespace, `${service}-${stage}-`, settings.metrics) },
      },
    };
  }
}
