// The part of the Serverless Framework (osls) that our serverless plugins use, for the JSDoc types
// of those plugins (`// @ts-check` .mjs files the framework loads without a build step). osls ships
// no types; this says only what the plugins read and write, so tsc checks them against it.

/**
 * A CloudFormation value: the properties of a resource differ per resource type, and the plugins
 * read the few they know by shape (the templates are checked against AWS's resource specification
 * by test/deploy).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CfnValue = any;

export interface CfnResource {
  Type: string;
  Properties?: Record<string, CfnValue>;
  DependsOn?: string | string[];
  Condition?: string;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  AWSTemplateFormatVersion?: string;
  Description?: string;
  Parameters?: Record<string, CfnValue>;
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
  Conditions?: Record<string, unknown>;
}

/** An event of a function in serverless.yml (`httpApi`, `websocket`, `stream`, `sqs`...). */
export type ServerlessEvent = Record<string, CfnValue>;

export interface ServerlessFunction {
  handler?: string;
  name?: string;
  events?: ServerlessEvent[];
  environment?: Record<string, string>;
  timeout?: number;
  [key: string]: unknown;
}

export interface ServerlessProvider {
  stage: string;
  region?: string;
  environment?: Record<string, string>;
  httpApi?: { payload?: string; cors?: unknown; [key: string]: unknown };
  compiledCloudFormationTemplate: CfnTemplate;
  stackTags?: Record<string, string>;
  tags?: Record<string, string>;
  shouldNotDeploy?: boolean;
  deploymentBucketObject?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerlessService {
  service: string;
  provider: ServerlessProvider;
  custom?: Record<string, CfnValue>;
  functions: Record<string, ServerlessFunction>;
  resources?: { Resources?: Record<string, CfnResource>; [key: string]: unknown };
  package: { artifactDirectoryName?: string; [key: string]: unknown };
  getAllFunctions(): string[];
  getAllEventsInFunction(name: string): ServerlessEvent[];
  getFunction(name: string): ServerlessFunction;
}

export interface AwsProvider {
  naming: { getLambdaLogicalId(functionName: string): string };
  getRegion(): string;
  getStage(): string;
  getServerlessDeploymentBucketName(): Promise<string>;
}

export interface Serverless {
  service: ServerlessService;
  serviceDir: string;
  classes: { Error: new (message: string) => Error };
  processedInput?: { options?: { param?: string | string[]; [key: string]: unknown } };
  configurationInput?: { params?: Record<string, Record<string, unknown> | undefined> };
  getProvider(name: "aws"): AwsProvider;
}

/** The CLI options a plugin is constructed with (`--function`, `--httpPort`...). */
export interface ServerlessOptions {
  function?: string;
  httpPort?: string | number;
  [key: string]: unknown;
}

/** The log the framework hands a plugin's constructor (its third argument). */
export interface ServerlessLog {
  warning(message: string): void;
  notice(message: string): void;
}

export interface ServerlessPlugin {
  hooks: Record<string, () => unknown>;
}

/** A part of serverless.yml as the framework resolved it (`custom.operations`...): any YAML value, checked where read. */
export type ConfigValue = CfnValue;

/** A resource whose properties are there: every resource the plugins change has some. */
export type CfnResourceWithProperties = CfnResource & { Properties: Record<string, CfnValue> };
