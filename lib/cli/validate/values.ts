import type { Finding, Site } from "./findings.ts";
import { report } from "./findings.ts";
import { checkIntrinsic, intrinsicName, isNoValue, type Json } from "./intrinsics.ts";
import type { Property, PropertyType, Spec } from "./spec.ts";

const isObject = (value: unknown): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A value's JSON kind, for messages. */
function kind(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/** How the specification names a type, for messages. */
export function typeName(spec: Spec, type: PropertyType): string {
  switch (type.type) {
    case "ref":
      return spec.definition(type.reference).name;
    case "array":
      return `list of ${typeName(spec, type.element)}`;
    case "map":
      return `map of ${typeName(spec, type.element)}`;
    case "union":
      return type.types.map((t) => typeName(spec, t)).join(" | ");
    default:
      return type.type;
  }
}

/**
 * Checks a structure's keys against the properties the specification declares for it: no key it
 * does not declare, every property it requires, each value of its property's type.
 */
export function checkProperties(spec: Spec, site: Site, path: string, value: Json, properties: Record<string, Property>, what: string): void {
  if (!isObject(value)) {
    report(site, path, `${what} expects an object, got ${kind(value)}`);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (!property) {
      report(site, `${path}.${key}`, `${what} has no property ${key} (it has ${Object.keys(properties).sort().join(", ")})`);
      continue;
    }
    if (isNoValue(item)) continue;
    checkProperty(spec, site, `${path}.${key}`, item, property);
  }
  for (const [key, property] of Object.entries(properties)) {
    if (property.required && !(key in value)) report(site, `${path}.${key}`, `${what} requires ${key}`);
  }
}

/**
 * A property's value against its current type; a value of one of its previous types (still
 * accepted by CloudFormation, the specification says) is a warning.
 */
function checkProperty(spec: Spec, site: Site, path: string, value: Json, property: Property): void {
  const current = collect(site, (s) => checkValue(spec, s, path, value, property.type));
  if (current.length === 0) return;
  const previous = (property.previousTypes ?? []).find((type) => collect(site, (s) => checkValue(spec, s, path, value, type)).length === 0);
  if (previous) {
    report(
      site,
      path,
      `a value of the property's previous type ${typeName(spec, previous)}, not of its current type ${typeName(spec, property.type)}`,
      "warning",
    );
    return;
  }
  for (const finding of current) site.report(finding);
}

/** The findings `check` reports at this site, held back rather than reported. */
function collect(site: Site, check: (held: Site) => void): Finding[] {
  const held: Finding[] = [];
  check({ ...site, report: (f) => held.push(f) });
  return held;
}

/**
 * A value against a property type. CloudFormation converts scalars as the registry's schemas allow
 * (a number or boolean given for a string, "5" for a number, "true" for a boolean), so those pass;
 * an object or a list where a scalar is expected, or the reverse, does not.
 */
export function checkValue(spec: Spec, site: Site, path: string, value: Json, type: PropertyType): void {
  const call = intrinsicName(value);
  if (call) {
    for (const branch of checkIntrinsic(site, path, value as Record<string, Json>, call)) {
      if (!isNoValue(branch.value)) checkValue(spec, site, branch.path, branch.value, type);
    }
    return;
  }
  const mismatch = (): void => report(site, path, `expects ${typeName(spec, type)}, got ${kind(value)}`);
  switch (type.type) {
    case "string":
    case "date-time":
      if (!["string", "number", "boolean"].includes(typeof value)) return mismatch();
      if (type.type === "string" && type.allowedValues && !type.allowedValues.includes(String(value))) {
        report(site, path, `${JSON.stringify(value)} is not one of ${type.allowedValues.join(", ")}`);
      }
      return;
    case "number":
      if (!(typeof value === "number" || (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))))) mismatch();
      return;
    case "integer":
      if (!Number.isInteger(typeof value === "string" && value.trim() !== "" ? Number(value) : value)) return mismatch();
      if (type.allowedValues && !type.allowedValues.includes(Number(value)))
        report(site, path, `${String(value)} is not one of ${type.allowedValues.join(", ")}`);
      return;
    case "boolean":
      if (!(typeof value === "boolean" || value === "true" || value === "false")) mismatch();
      return;
    case "json":
      return;
    case "null":
      if (value !== null) mismatch();
      return;
    case "tag":
      checkProperties(spec, site, path, value, TAG, "Tag");
      return;
    case "ref": {
      const definition = spec.definition(type.reference);
      checkProperties(spec, site, path, value, definition.properties, definition.name);
      return;
    }
    case "array":
      if (!Array.isArray(value)) return mismatch();
      value.forEach((item, i) => {
        if (!isNoValue(item)) checkValue(spec, site, `${path}[${i}]`, item, type.element);
      });
      return;
    case "map":
      if (!isObject(value)) return mismatch();
      for (const [key, item] of Object.entries(value)) checkValue(spec, site, `${path}.${key}`, item, type.element);
      return;
    case "union": {
      const attempts = type.types.map((t) => collect(site, (s) => checkValue(spec, s, path, value, t)));
      if (attempts.some((a) => a.length === 0)) return;
      // The alternative of the value's own shape says what is wrong inside it; failing that, the mismatch.
      const shaped = type.types.flatMap((t, i) =>
        (isObject(value) && (t.type === "ref" || t.type === "map" || t.type === "tag")) || (Array.isArray(value) && t.type === "array")
          ? [attempts[i] as Finding[]]
          : [],
      );
      if (shaped.length === 1) for (const finding of shaped[0] as Finding[]) site.report(finding);
      else mismatch();
      return;
    }
  }
}

/** A tag as every resource's `Tags` list holds it. */
const TAG: Record<string, Property> = {
  Key: { type: { type: "string" }, required: true },
  Value: { type: { type: "string" }, required: true },
};
