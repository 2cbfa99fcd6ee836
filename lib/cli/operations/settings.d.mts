export declare const ALARM_DEFAULTS: Record<string, number>;
export declare const EVALUATION_DEFAULTS: { periodSeconds: number; evaluationPeriods: number; datapointsToAlarm: number; minRequests: number };
export declare const EDGE_DEFAULTS: { throttleRate: number; throttleBurst: number; authThrottleRate: number; authThrottleBurst: number };
export interface OperationsSettings {
  namespace: string;
  logRetentionDays: number | undefined;
  metrics: boolean;
  tracing: boolean;
  alarmTopicArn: string | undefined;
  alarmEmail: string | undefined;
  dashboard: boolean;
  graphiql: boolean;
  testRoutes: boolean;
  testServices: string[];
  tags: Record<string, string>;
  accountConcurrencyLimit: number;
  evaluation: { periodSeconds: number; evaluationPeriods: number; datapointsToAlarm: number; minRequests: number };
  edge: {
    throttleRate: number | undefined;
    throttleBurst: number | undefined;
    authThrottleRate: number | undefined;
    authThrottleBurst: number | undefined;
    streamReservedConcurrency: number | undefined;
    wsReservedConcurrency: number | undefined;
    tableDeletionProtection: boolean;
    accessLogs: boolean;
    apiGatewayLogsRole: "create" | "existing";
  };
  alarms: Record<string, number | undefined>;
}
export declare function operationsSettings(raw?: unknown): OperationsSettings;
