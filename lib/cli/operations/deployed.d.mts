import type { OperationsSettings } from "./settings.mjs";
export declare function isDeployedStage(stage: string, env?: Record<string, string | undefined>): boolean;
export declare function destinationProblem(settings: OperationsSettings, stage: string, region?: string): string | undefined;
interface ServiceConfig {
  service: string;
  provider: { environment?: Record<string, string>; stackTags?: Record<string, string>; tags?: Record<string, string> };
  functions?: Record<string, { events?: unknown[] }>;
}
/** Returns the names of the functions removed. */
export declare function prepareDeployedService(service: ServiceConfig, settings: OperationsSettings, stage: string): string[];
