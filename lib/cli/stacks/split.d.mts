import type { CfnResource } from "./shared-log-groups.d.mts";
export interface CfnTemplate {
  Parameters?: Record<string, unknown>;
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown }>;
}
export function assignGroups(resources: Record<string, CfnResource>, groupOfFunction: Map<string, string>): Map<string, string>;
export function splitTemplate(
  template: CfnTemplate,
  options: { groupOfFunction: Map<string, string>; limit: number; templateUrl: (file: string) => unknown; description?: (group: string) => string },
): { id: string; group: string; file: string; template: CfnTemplate & { Description: string } }[];
