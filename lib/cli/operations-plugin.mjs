// A local serverless plugin: what a deployed stage needs to be run (docs/operating.md). It sets the
// retention of every log group, turns X-Ray tracing on when asked, and adds the alarms and the
// dashboard. Its own file and hook, apart from the template's other plugin, so that the two change
// independently; the resources it adds come from lib/cli/operations/.
import { alarmResources } from "./operations/alarms.mjs";
import { dashboardBody } from "./operations/dashboard.mjs";
import { operationsSettings } from "./operations/settings.mjs";

// AWS's managed policy for sending traces: X-Ray's PutTraceSegments and PutTelemetryRecords take no
// resource ARN (IAM allows only "*" for them), so no statement of ours can be narrower.
const XRAY_POLICY = { "Fn::Sub": "arn:${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess" };

export default class OperationsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    // After the resources of serverless.yml (tables, the stream's failure queue) joined the
    // template, before it is written.
    this.hooks = { "after:aws:package:finalize:mergeCustomProviderResources": () => this.apply() };
  }

  apply() {
    let settings;
    try {
      settings = operationsSettings(this.serverless.service.custom?.operations);
    } catch (error) {
      throw new this.serverless.classes.Error(error.message);
    }
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    addOperations(template, settings, this.functions(template), `${this.serverless.service.service}-${this.serverless.service.provider.stage}-`);
    // The resource limit is the template splitter's to keep (lib/cli/stacks/, a later hook): it
    // moves each route group's alarms with its functions when the whole would pass it.
  }

  functions(template) {
    const naming = this.serverless.getProvider("aws").naming;
    return this.serverless.service.getAllFunctions().map((name) => {
      const logicalId = naming.getLambdaLogicalId(name);
      return { name, logicalId, timeout: template.Resources[logicalId]?.Properties?.Timeout ?? 6 };
    });
  }
}

/** Mutates `template`: retention, tracing, alarms, dashboard. Exported for the template tests. */
export function addOperations(template, settings, functions, functionPrefix) {
  const resources = template.Resources;
  for (const resource of Object.values(resources)) {
    if (resource.Type === "AWS::Logs::LogGroup") {
      if (settings.logRetentionDays === undefined) delete resource.Properties.RetentionInDays;
      else resource.Properties.RetentionInDays = settings.logRetentionDays;
    }
    if (settings.tracing && resource.Type === "AWS::Lambda::Function") {
      resource.Properties.TracingConfig = { Mode: "Active" };
      // Read by lib/core/metrics.ts: the trace id goes on the log and metric lines.
      resource.Properties.Environment ??= { Variables: {} };
      resource.Properties.Environment.Variables.TRACING = "true";
    }
    if (!settings.metrics && resource.Type === "AWS::Lambda::Function") {
      // Read by lib/core/metrics.ts: the invocation writes no metric line.
      resource.Properties.Environment ??= { Variables: {} };
      resource.Properties.Environment.Variables.METRICS = "off";
    }
    if (settings.tracing && resource.Type === "AWS::IAM::Role") {
      resource.Properties.ManagedPolicyArns = [...(resource.Properties.ManagedPolicyArns ?? []), XRAY_POLICY];
    }
  }
  const present = (id) => (id in resources ? id : undefined);
  const stream = functions.find((fn) => fn.name === "stream");
  Object.assign(resources, alarmResources(settings, {
    functions: functions.filter((fn) => fn.logicalId in resources),
    tables: Object.keys(resources).filter((id) => resources[id].Type === "AWS::DynamoDB::Table"),
    httpApi: present("HttpApi"),
    streamFunction: stream ? present(stream.logicalId) : undefined,
    failureQueue: present("StreamFailuresQueue"),
  }));
  if (settings.dashboard) {
    resources.OperationsDashboard = {
      Type: "AWS::CloudWatch::Dashboard",
      Properties: { DashboardName: { "Fn::Sub": "${AWS::StackName}" }, DashboardBody: { "Fn::Sub": dashboardBody(settings.namespace, functionPrefix, settings.metrics) } },
    };
  }
}
