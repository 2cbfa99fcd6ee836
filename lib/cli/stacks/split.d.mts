import type { CfnResource } from "./shared-log-groups.d.mts";
export interface CfnTemplate {
  Parameters?: Record<string, unknown>;
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}
export function assignGroups(resources: Record<string, CfnResource>, groupOfFunction: Map<string, string>): Map<string, string>;
/** The children are typed as the root is: resources of the same shape move between them. */
export function splitTemplate<T extends CfnTemplate>(
  template: T,
  options: { groupOfFunction: Map<string, string>; limit: number; maxResources?: number; templateUrl: (file: string) => unknown; description?: (group: string) => string },
): { id: string; group: string; file: string; template: T & { Description: string } }[];
export const ALARMS_GROUP: string;
