export const HARD_LIMIT: 500;
export const DEFAULT_LIMIT: 450;
export function configuredLimit(custom: { nestedStacks?: { limit?: unknown } } | undefined): number;
export function shapeTemplate(serverless: unknown): Promise<{ before: number; shared: number; policies: number; limit: number; counts: [string, number][] }>;
export function uploadNestedTemplates(serverless: unknown): Promise<number>;
