// @ts-check
// The tables of a CloudFormation template (a `serverless package` output, or a deployed stack's
// template as GetTemplate returns it) in one shape the plan compares: key, indexes, stream, TTL and
// retention. Plain JS: the serverless plugin (../serverless-plugin.mjs) runs the same comparison.
/** @import { CfnResource, CfnTemplate, CfnValue } from "../../core/serverless-host.ts" */

/**
 * @typedef {{ name: string, type: string }} KeyPart
 * @typedef {{ hash: KeyPart, range?: KeyPart }} Key
 * @typedef {{ name: string, key: Key, projection: string }} Index
 * @typedef {{
 *   id: string,
 *   name: string,
 *   key: Key,
 *   indexes: Index[],
 *   stream: string | undefined,
 *   ttl: string | undefined,
 *   retained: boolean,
 * }} TableSpec
 */

/** @param {unknown} value @returns {Record<string, unknown>} */
const record = (value) => (value !== null && typeof value === "object" && !Array.isArray(value) ? /** @type {Record<string, unknown>} */ (value) : {});
/** @param {unknown} value @returns {unknown[]} */
const list = (value) => (Array.isArray(value) ? value : []);

/**
 * A key schema with its attributes' types, the one form the template and DescribeTable share.
 * @param {unknown} keySchema
 * @param {Map<string, string>} types
 * @returns {Key}
 */
export function keyOf(keySchema, types) {
  const parts = list(keySchema).map(record);
  /** @param {string} kind @returns {KeyPart | undefined} */
  const part = (kind) => {
    const name = parts.find((p) => p.KeyType === kind)?.AttributeName;
    return typeof name === "string" ? { name, type: types.get(name) ?? "S" } : undefined;
  };
  const hash = part("HASH");
  if (!hash) throw new Error(`a key schema without a HASH key: ${JSON.stringify(keySchema)}`);
  const range = part("RANGE");
  return range ? { hash, range } : { hash };
}

/** @param {Key} key */
export const keyText = (key) => `${key.hash.name} (${key.hash.type})${key.range ? ` + ${key.range.name} (${key.range.type})` : ""}`;

/**
 * A table as CreateTable or CloudFormation says it (the two spell the same properties alike).
 * @param {string} id
 * @param {Record<string, unknown>} properties
 * @param {{ retained: boolean }} retention
 * @returns {TableSpec}
 */
export function specOf(id, properties, { retained }) {
  const types = new Map(list(properties.AttributeDefinitions).map((a) => [String(record(a).AttributeName), String(record(a).AttributeType)]));
  const stream = record(properties.StreamSpecification);
  const ttl = record(properties.TimeToLiveSpecification);
  const name = properties.TableName;
  return {
    id,
    name: typeof name === "string" ? name : JSON.stringify(name),
    key: keyOf(properties.KeySchema, types),
    indexes: list(properties.GlobalSecondaryIndexes).map((i) => {
      const index = record(i);
      return { name: String(index.IndexName), key: keyOf(index.KeySchema, types), projection: JSON.stringify(index.Projection ?? {}) };
    }),
    // CreateTable says StreamEnabled; CloudFormation streams whenever the specification is there.
    stream: stream.StreamEnabled === false || stream.StreamViewType === undefined ? undefined : String(stream.StreamViewType),
    ttl: ttl.Enabled === true || ttl.Enabled === "true" ? String(ttl.AttributeName) : undefined,
    retained,
  };
}

/**
 * The DynamoDB tables of one or more templates (a root stack and its nested stacks), by logical id.
 * @param {CfnTemplate[]} templates
 * @returns {Map<string, TableSpec>}
 */
export function templateTables(templates) {
  /** @type {Map<string, TableSpec>} */
  const tables = new Map();
  for (const template of templates) {
    for (const [id, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== "AWS::DynamoDB::Table") continue;
      tables.set(id, specOf(id, record(resource.Properties), { retained: retains(resource) }));
    }
  }
  return tables;
}

/**
 * Whether CloudFormation keeps the table when the resource leaves the stack and when it is replaced.
 * @param {CfnResource} resource
 */
export const retains = (resource) => resource.DeletionPolicy === "Retain" && resource.UpdateReplacePolicy === "Retain";

/**
 * A template's table resources, to rewrite: the step templates change their indexes.
 * @param {CfnTemplate} template
 * @returns {[string, CfnResource & { Properties: Record<string, CfnValue> }][]}
 */
export function tableResources(template) {
  return Object.entries(template.Resources ?? {}).flatMap(([id, r]) =>
    r.Type === "AWS::DynamoDB::Table" && r.Properties ? [[id, /** @type {CfnResource & { Properties: Record<string, CfnValue> }} */ (r)]] : [],
  );
}
