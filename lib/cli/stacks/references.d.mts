export type Reference = { kind: "ref"; target: string } | { kind: "getatt"; target: string; attribute: string };
export function isPseudo(name: string): boolean;
export function rewriteReferences(value: unknown, rewrite: (reference: Reference) => object | undefined): unknown;
export function referencesIn(value: unknown): Reference[];
export function dependsOn(resource: { DependsOn?: string | string[] }): string[];
export function namedIds(resource: { Properties?: unknown; DependsOn?: string | string[] }): Set<string>;
