import type { Application } from "../core/application.ts";
import { tableLogicalId } from "../store/cloudformation.ts";

export interface StreamEvent {
  stream: {
    type: "dynamodb";
    arn: { "Fn::GetAtt": [string, "StreamArn"] };
    startingPosition: "LATEST";
    batchSize: number;
    maximumRetryAttempts: number;
    maximumRecordAgeInSeconds: number;
    functionResponseType: "ReportBatchItemFailures";
    destinations: { onFailure: { arn: { "Fn::GetAtt": [string, "Arn"] }; type: "sqs" } };
  };
}

/** Where a stream batch goes once its retries are spent: kept 14 days, never dropped silently. */
export const STREAM_FAILURES = "StreamFailuresQueue";

export function streamFailureResources(): Record<string, unknown> {
  return {
    [STREAM_FAILURES]: {
      Type: "AWS::SQS::Queue",
      Properties: { MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true },
    },
  };
}

/**
 * The `stream` function's events: one per model table, so the list follows the models (rendered
 * into schema-cache/stream-events.json by the build). The handler reports the first record it
 * could not deliver, so a retry resumes there (the records before it are not delivered twice);
 * after the last retry the batch's description goes to the failure queue.
 */
export function realtimeStreamEvents(app: Application): StreamEvent[] {
  return app.models().map((info) => ({
    stream: {
      type: "dynamodb",
      arn: { "Fn::GetAtt": [tableLogicalId(info.name), "StreamArn"] },
      startingPosition: "LATEST",
      batchSize: 100,
      maximumRetryAttempts: 5,
      maximumRecordAgeInSeconds: 300,
      functionResponseType: "ReportBatchItemFailures",
      destinations: { onFailure: { arn: { "Fn::GetAtt": [STREAM_FAILURES, "Arn"] }, type: "sqs" } },
    },
  }));
}

/** Posting to and closing WebSocket connections through the management API, on this API only. */
export function manageConnectionsStatement(): Record<string, unknown> {
  return {
    Effect: "Allow",
    Action: ["execute-api:ManageConnections"],
    Resource: [{ "Fn::Sub": "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${WebsocketsApi}/*/*/@connections/*" }],
  };
}

/** The fan-out queue (FIFO: one group per topic share keeps each share's events in stream order) and its dead letters. */
export const FANOUT_QUEUE = "FanoutQueue";
export const FANOUT_DEAD_LETTERS = "FanoutDeadLetterQueue";
/** The worker's timeout (serverless.yml's `fanout` function): SQS asks for a visibility timeout of six times it. */
export const FANOUT_WORKER_TIMEOUT_S = 60;
export const FANOUT_VISIBILITY_TIMEOUT_S = 6 * FANOUT_WORKER_TIMEOUT_S;

/**
 * A share message is received at most three times (the worker's `WS_FANOUT_MAX_RECEIVES`), then
 * moved to the dead letters, kept 14 days. High-throughput FIFO: deduplication and throughput
 * per message group. A share's event is an hour old at most before it is dropped undelivered.
 */
export function fanoutResources(): Record<string, unknown> {
  return {
    [FANOUT_QUEUE]: {
      Type: "AWS::SQS::Queue",
      Properties: {
        FifoQueue: true,
        DeduplicationScope: "messageGroup",
        FifoThroughputLimit: "perMessageGroupId",
        VisibilityTimeout: FANOUT_VISIBILITY_TIMEOUT_S,
        MessageRetentionPeriod: 3_600,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { "Fn::GetAtt": [FANOUT_DEAD_LETTERS, "Arn"] }, maxReceiveCount: 3 },
      },
    },
    [FANOUT_DEAD_LETTERS]: {
      Type: "AWS::SQS::Queue",
      Properties: { FifoQueue: true, MessageRetentionPeriod: 1_209_600, SqsManagedSseEnabled: true },
    },
  };
}

/** The stream function sends share messages; nothing else. */
export function sendFanoutStatement(): Record<string, unknown> {
  return { Effect: "Allow", Action: ["sqs:SendMessage"], Resource: [{ "Fn::GetAtt": [FANOUT_QUEUE, "Arn"] }] };
}

/** The worker's event source mapping reads and deletes with the worker's role; nothing else. */
export function consumeFanoutStatement(): Record<string, unknown> {
  return {
    Effect: "Allow",
    Action: ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ChangeMessageVisibility"],
    Resource: [{ "Fn::GetAtt": [FANOUT_QUEUE, "Arn"] }],
  };
}
