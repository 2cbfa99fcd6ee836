export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  Condition?: string;
  DeletionPolicy?: string;
}
export function shareLogGroups(template: { Resources: Record<string, CfnResource>; Outputs?: Record<string, unknown> }, groupOfFunction: Map<string, string>, prefix: string): number;
