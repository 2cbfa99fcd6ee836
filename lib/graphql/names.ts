import type { ModelInfo } from "../core/model-info.ts";

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function isGraphQLName(name: string): boolean {
  return NAME.test(name) && !name.startsWith("__");
}

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function camel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * The plural query field keeps the class name's casing: `Posts`, `PostTags`, `Categories`. The
 * model's route plural (lowercase, maybe irregular) gives the ending.
 */
export function pluralName(info: ModelInfo): string {
  const lower = info.name.toLowerCase();
  let common = 0;
  while (common < lower.length && common < info.plural.length && lower[common] === info.plural[common]) common++;
  return pascal(info.name.slice(0, common) + info.plural.slice(common));
}

/** A model operation is `<operation><Model>`, e.g. `publishPost`: one root field per model and operation. */
export function modelOperationField(operation: string, info: ModelInfo): string {
  return `${camel(operation)}${info.name}`;
}

/**
 * Service operations: `<service><Operation>` from the configured service name, e.g.
 * `publisherPublishPost`, `testbeanTestOperation`, `versionVersion`; the service name keeps two
 * services with the same operation apart.
 */
export function serviceOperationField(service: string, operation: string): string {
  return `${camel(service)}${pascal(operation)}`;
}
