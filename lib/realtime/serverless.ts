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
  };
}

/**
 * The `stream` function's events: one per model table, so the list follows the models (rendered
 * into schema-cache/stream-events.json by the build).
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
