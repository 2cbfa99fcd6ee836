import { report, type Site } from "./findings.ts";

/**
 * The functions CloudFormation evaluates in a template. A value that is one of them is accepted
 * wherever a property expects a value (its result is only known at deploy time), but its own shape
 * is checked, and both branches of an `Fn::If` are checked as the property's value.
 */
const FUNCTIONS = new Set([
  "Ref",
  "Condition",
  "Fn::GetAtt",
  "Fn::Sub",
  "Fn::Join",
  "Fn::If",
  "Fn::Select",
  "Fn::Split",
  "Fn::FindInMap",
  "Fn::ImportValue",
  "Fn::Base64",
  "Fn::Cidr",
  "Fn::GetAZs",
  "Fn::Equals",
  "Fn::And",
  "Fn::Or",
  "Fn::Not",
  "Fn::Transform",
  "Fn::ToJsonString",
  "Fn::Length",
  "Fn::ForEach",
]);

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, Json> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The function's name when `value` is a call (one key, `Ref` or `Fn::...`), else undefined. */
export function intrinsicName(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const [key] = keys as [string];
  return key === "Ref" || key.startsWith("Fn::") ? key : undefined;
}

/** `{"Ref": "AWS::NoValue"}`: the property is left out, as if absent. */
export const isNoValue = (value: unknown): boolean => isObject(value) && value.Ref === "AWS::NoValue" && Object.keys(value).length === 1;

const isString = (value: unknown): boolean => typeof value === "string" || intrinsicName(value) !== undefined;
const isList = (value: unknown): boolean => Array.isArray(value) || intrinsicName(value) !== undefined;

/**
 * Checks a call's own shape (a known function, the arguments it takes) and returns the values it
 * may evaluate to that are still to be checked against the property's type: an `Fn::If`'s two
 * branches, nothing for the other functions.
 */
export function checkIntrinsic(site: Site, path: string, value: Record<string, Json>, name: string): { value: Json; path: string }[] {
  const args = value[name];
  const at = `${path}.${name}`;
  const shape = (ok: boolean, expected: string): void => {
    if (!ok) report(site, at, `${name} takes ${expected}, got ${JSON.stringify(args)}`);
  };
  if (!FUNCTIONS.has(name)) {
    report(site, at, `unknown intrinsic function ${name}`);
    return [];
  }
  switch (name) {
    case "Ref":
      shape(typeof args === "string", "a logical id or parameter name");
      return [];
    case "Fn::GetAtt":
      shape(
        (typeof args === "string" && args.includes(".")) || (Array.isArray(args) && args.length === 2 && typeof args[0] === "string" && isString(args[1])),
        "[logicalId, attribute]",
      );
      return [];
    case "Fn::Sub":
      shape(
        typeof args === "string" || (Array.isArray(args) && args.length === 2 && typeof args[0] === "string" && isObject(args[1])),
        "a string or [string, {variables}]",
      );
      return [];
    case "Fn::Join":
      shape(Array.isArray(args) && args.length === 2 && typeof args[0] === "string" && isList(args[1]), "[delimiter, [values]]");
      return [];
    case "Fn::Select":
      shape(Array.isArray(args) && args.length === 2 && isList(args[1]), "[index, [values]]");
      return [];
    case "Fn::Split":
      shape(Array.isArray(args) && args.length === 2 && typeof args[0] === "string" && isString(args[1]), "[delimiter, string]");
      return [];
    case "Fn::If":
      if (!(Array.isArray(args) && args.length === 3 && typeof args[0] === "string")) {
        shape(false, "[condition, valueIfTrue, valueIfFalse]");
        return [];
      }
      return [
        { value: args[1] as Json, path: `${at}[1]` },
        { value: args[2] as Json, path: `${at}[2]` },
      ];
    default:
      return [];
  }
}
