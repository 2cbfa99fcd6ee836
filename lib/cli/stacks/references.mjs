// @ts-check
// What a CloudFormation value refers to, and the same value with its references rewritten: Ref,
// Fn::GetAtt (both spellings) and the `${Name}` / `${Name.Attribute}` variables of Fn::Sub. Moving
// resources between stacks, or merging them, is a matter of rewriting these.

/** @import { CfnResource } from "../../core/serverless-host.ts" */
/** @typedef {{ kind: "ref", target: string } | { kind: "getatt", target: string, attribute: string }} Reference */

const SUB_VARIABLE = /\$\{(?!!)([^}]+)\}/g;

/** @param {string} name */
export function isPseudo(name) {
  return name.startsWith("AWS::");
}

/**
 * `Name` or `Name.Attr.Part` of a Sub variable as a reference.
 * @param {string} variable
 * @returns {Reference}
 */
function subReference(variable) {
  const [target = "", ...attribute] = variable.trim().split(".");
  return attribute.length === 0 ? { kind: "ref", target } : { kind: "getatt", target, attribute: attribute.join(".") };
}

/**
 * @param {unknown} arg
 * @returns {[string, unknown]}
 */
function getAttParts(arg) {
  if (Array.isArray(arg)) return [String(arg[0]), arg[1]];
  const [target = "", ...attribute] = String(arg).split(".");
  return [target, attribute.join(".")];
}

/**
 * A deep copy of `value` where each reference is replaced by what `rewrite` returns for it: a new
 * intrinsic (an object), or undefined to keep it. A Sub variable may only become another Sub
 * variable: `rewrite` returns `{ "Fn::Sub": "${...}" }` style objects and the variable text is
 * taken from them. The copy has the shape of `value`: intrinsics are objects either way.
 * @template T
 * @param {T} value
 * @param {(reference: Reference) => object | undefined} rewrite
 * @returns {T}
 */
export function rewriteReferences(value, rewrite) {
  return /** @type {T} */ (rewriteValue(value, rewrite));
}

/**
 * @param {unknown} value
 * @param {(reference: Reference) => object | undefined} rewrite
 * @returns {unknown}
 */
function rewriteValue(value, rewrite) {
  if (Array.isArray(value)) return value.map((item) => rewriteValue(item, rewrite));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const [first] = entries;
  if (entries.length === 1 && first !== undefined) {
    const [fn, arg] = first;
    if (fn === "Ref" && typeof arg === "string") return isPseudo(arg) ? value : (rewrite({ kind: "ref", target: arg }) ?? value);
    if (fn === "Fn::GetAtt") {
      const [target, attribute] = getAttParts(arg);
      return rewrite({ kind: "getatt", target, attribute: String(attribute) }) ?? value;
    }
    if (fn === "Fn::Sub") {
      const [text, variables] = Array.isArray(arg) ? arg : [arg, undefined];
      const local = new Set(Object.keys(variables ?? {}));
      const replaced = String(text).replace(SUB_VARIABLE, (/** @type {string} */ whole, /** @type {string} */ variable) => {
        const reference = subReference(variable);
        if (local.has(reference.target) || isPseudo(reference.target)) return whole;
        const next = rewrite(reference);
        if (next === undefined) return whole;
        return `\${${subVariable(next)}}`;
      });
      const nextVariables = variables === undefined ? undefined : rewriteValue(variables, rewrite);
      return { "Fn::Sub": nextVariables === undefined ? replaced : [replaced, nextVariables] };
    }
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, rewriteValue(item, rewrite)]));
}

/**
 * The Sub variable text of a Ref or GetAtt intrinsic.
 * @param {{ Ref?: unknown, "Fn::GetAtt"?: unknown }} intrinsic
 */
function subVariable(intrinsic) {
  if ("Ref" in intrinsic) return String(intrinsic.Ref);
  const [target, attribute] = getAttParts(intrinsic["Fn::GetAtt"]);
  return `${target}.${attribute}`;
}

/**
 * Every reference in `value` (pseudo parameters left out).
 * @param {unknown} value
 * @returns {Reference[]}
 */
export function referencesIn(value) {
  /** @type {Reference[]} */
  const found = [];
  rewriteReferences(value, (reference) => {
    found.push(reference);
    return undefined;
  });
  return found;
}

/**
 * A resource's DependsOn as an array.
 * @param {Pick<CfnResource, "DependsOn">} resource
 * @returns {string[]}
 */
export function dependsOn(resource) {
  const value = resource.DependsOn;
  return value === undefined ? [] : [value].flat();
}

/**
 * Every logical id a resource names: its references and its DependsOn.
 * @param {Pick<CfnResource, "Properties" | "DependsOn">} resource
 * @returns {Set<string>}
 */
export function namedIds(resource) {
  return new Set([...referencesIn(resource.Properties ?? {}).map((r) => r.target), ...dependsOn(resource)]);
}
