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
