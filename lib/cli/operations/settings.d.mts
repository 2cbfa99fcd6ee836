export declare const ALARM_DEFAULTS: Record<string, number>;
export interface OperationsSettings {
  namespace: string;
  logRetentionDays: number | undefined;
  metrics: boolean;
  tracing: boolean;
  alarmTopicArn: string | undefined;
  dashboard: boolean;
  alarms: Record<string, number | undefined>;
}
export declare function operationsSettings(raw?: unknown): OperationsSettings;
