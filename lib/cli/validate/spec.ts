import { createRequire } from "node:module";
import { loadAwsServiceSpec } from "@aws-cdk/aws-service-spec";
import type { Attribute, Property, PropertyType, TypeDefinition } from "@aws-cdk/service-spec-types";

export type { Property, PropertyType };

/** What the validator asks of AWS's published resource specification. */
export interface Spec {
  /** `@aws-cdk/aws-service-spec@<version>`, for the report. */
  source: string;
  /** A resource type's properties and attributes, or undefined when the specification has no such type. */
  resource(type: string): { properties: Record<string, Property>; attributes: Record<string, Attribute> } | undefined;
  /** A property type that a `ref` type names (a resource's nested structure). */
  definition(reference: { $ref: string }): TypeDefinition;
}

let loaded: Promise<Spec> | undefined;

/**
 * The CloudFormation registry's resource and property types as `@aws-cdk/aws-service-spec`
 * publishes them (the database the CDK generates its L1 constructs from), loaded once per process:
 * reading it takes about a second.
 */
export function loadSpec(): Promise<Spec> {
  loaded ??= (async () => {
    const db = await loadAwsServiceSpec();
    const { version } = createRequire(import.meta.url)("@aws-cdk/aws-service-spec/package.json") as { version: string };
    return {
      source: `@aws-cdk/aws-service-spec@${version}`,
      resource(type) {
        const found = db.lookup("resource", "cloudFormationType", "equals", type);
        return found.length === 1 ? found.only() : undefined;
      },
      definition: (reference) => db.get("typeDefinition", reference),
    };
  })();
  return loaded;
}
