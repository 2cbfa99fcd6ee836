import type { Finding, Site } from "./findings.ts";
import { report } from "./findings.ts";
import { intrinsicName, type Json } from "./intrinsics.ts";
import type { Spec } from "./spec.ts";
import { checkProperties } from "./values.ts";

const SECTIONS = new Set([
  "AWSTemplateFormatVersion",
  "Description",
  "Metadata",
  "Parameters",
  "Mappings",
  "Conditions",
  "Transform",
  "Rules",
  "Resources",
  "Outputs",
]);
const RESOURCE_KEYS = new Set([
  "Type",
  "Properties",
  "DependsOn",
  "Condition",
  "Metadata",
  "DeletionPolicy",
  "UpdateReplacePolicy",
  "CreationPolicy",
  "UpdatePolicy",
]);
const DELETION_POLICIES = ["Delete", "Retain", "RetainExceptOnCreate", "Snapshot"];
const REPLACE_POLICIES = ["Delete", "Retain", "Snapshot"];
const isObject = (value: unknown): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);
const isCustom = (type: string): boolean => type.startsWith("Custom::") || type === "AWS::CloudFormation::CustomResource";

/**
 * Every resource of one template against the specification: its type exists, its attributes
 * (DeletionPolicy, ...) are CloudFormation's, its properties are the type's, of their types, with
 * the required ones present and enumerated values among those allowed; every `Fn::GetAtt` names an
 * attribute its target's type has.
 */
export function validateTemplate(spec: Spec, template: unknown, file: string): Finding[] {
  const findings: Finding[] = [];
  const site = (resource: string, type: string): Site => ({ file, resource, type, report: (f) => findings.push(f) });
  const top = site("", "");
  if (!isObject(template) || !isObject(template.Resources)) {
    report(top, "Resources", "a template needs a Resources object");
    return findings;
  }
  for (const key of Object.keys(template)) if (!SECTIONS.has(key)) report(top, key, `a template has no section ${key}`);
  const resources = template.Resources;
  for (const [id, resource] of Object.entries(resources)) {
    const path = `Resources.${id}`;
    if (!isObject(resource) || typeof resource.Type !== "string") {
      report(top, path, "a resource needs a Type");
      continue;
    }
    const type = resource.Type;
    const here = site(id, type);
    for (const key of Object.keys(resource)) if (!RESOURCE_KEYS.has(key)) report(here, `${path}.${key}`, `a resource has no attribute ${key}`);
    const policy = (key: string, allowed: string[]): void => {
      const value = resource[key];
      if (value !== undefined && !allowed.includes(String(value)))
        report(here, `${path}.${key}`, `${JSON.stringify(value)} is not one of ${allowed.join(", ")}`);
    };
    policy("DeletionPolicy", DELETION_POLICIES);
    policy("UpdateReplacePolicy", REPLACE_POLICIES);
    if (isCustom(type)) continue;
    const definition = spec.resource(type);
    if (!definition) {
      report(here, `${path}.Type`, `${type} is not a resource type of the specification`);
      continue;
    }
    checkProperties(spec, here, `${path}.Properties`, resource.Properties ?? {}, definition.properties, type);
    checkAttributes(spec, here, path, resource, resources);
  }
  checkAttributes(spec, top, "Outputs", template.Outputs ?? {}, resources);
  return findings;
}

/** Every `Fn::GetAtt` under `value` names an attribute of its target's type (a nested stack's `Outputs.*`, a custom resource's anything). */
function checkAttributes(spec: Spec, site: Site, path: string, value: Json, resources: Record<string, Json>): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkAttributes(spec, site, `${path}[${i}]`, item, resources));
    return;
  }
  if (!isObject(value)) return;
  if (intrinsicName(value) === "Fn::GetAtt") {
    const args = value["Fn::GetAtt"];
    const [target, attribute] =
      typeof args === "string" ? [args.slice(0, args.indexOf(".")), args.slice(args.indexOf(".") + 1)] : Array.isArray(args) ? args : [];
    const resource = typeof target === "string" ? resources[target] : undefined;
    const type = isObject(resource) && typeof resource.Type === "string" ? resource.Type : undefined;
    if (type && typeof attribute === "string" && !isCustom(type) && !(type === "AWS::CloudFormation::Stack" && attribute.startsWith("Outputs."))) {
      const attributes = spec.resource(type)?.attributes;
      if (attributes && !(attribute in attributes))
        report(site, `${path}.Fn::GetAtt`, `${type} has no attribute ${attribute} (it has ${Object.keys(attributes).sort().join(", ")})`);
    }
    return;
  }
  for (const [key, item] of Object.entries(value)) checkAttributes(spec, site, `${path}.${key}`, item, resources);
}
