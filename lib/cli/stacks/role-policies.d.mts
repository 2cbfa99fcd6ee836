export const INLINE_LIMIT: 10240;
export const MANAGED_LIMIT: 6144;
export function policySize(document: unknown, resources: Record<string, unknown>): number;
export function fitRolePolicies(template: { Resources: Record<string, unknown> }): string[];
