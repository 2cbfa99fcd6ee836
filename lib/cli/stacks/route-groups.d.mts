export function firstSegment(path: string): string | undefined;
export function routeGroups(functions: Record<string, { events?: unknown[] }>): Map<string, string>;
export function pascal(group: string): string;
