import type { ModelInfo } from "./model-info.ts";
import type { JsonSchema } from "./schema.ts";

/** What a field promises of the values stored in it: its JSON type, and its allowed values when listed. */
export interface FieldShape {
  type?: string | string[];
  values?: unknown[];
}

/**
 * The shape of a model's stored records at one build: what the next build is compared with
 * (`schema-cache/records.json`), since records written under it stay in the table.
 */
export interface RecordContract {
  version: number;
  fields: Record<string, FieldShape>;
  required: string[];
  defaults: string[];
}

export type RecordContracts = Record<string, RecordContract>;

function literals(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (schema.const !== undefined) return [schema.const];
  const branches = schema.anyOf;
  if (!branches || !branches.every((b) => b.const !== undefined)) return undefined;
  return branches.map((b) => b.const);
}

function fieldShape(schema: JsonSchema): FieldShape {
  const values = literals(schema);
  return { ...(schema.type !== undefined ? { type: schema.type } : {}), ...(values ? { values } : {}) };
}

export function recordContracts(models: readonly ModelInfo[]): RecordContracts {
  const out: RecordContracts = {};
  for (const info of [...models].sort((a, b) => a.name.localeCompare(b.name))) {
    out[info.name] = {
      version: info.upgrade.version,
      fields: Object.fromEntries(Object.entries(info.schema.properties).map(([field, schema]) => [field, fieldShape(schema)])),
      required: [...(info.schema.required ?? [])],
      defaults: Object.keys(info.upgrade.defaults),
    };
  }
  return out;
}

const fix = (info: ModelInfo, before: number, does = `makes every version-${before} record hold it`): string =>
  `raise ${info.name}.version to ${before + 1} with an upgrade step \`upgrades[${before}]\` that ${does}`;

/**
 * The changes that would leave records already stored outside the contract the application now
 * publishes (OpenAPI, GraphQL, validation), each naming the model, the field and why. A model new
 * since `previous`, or one whose version rose, is not judged: its steps say how old records become
 * current (`checkModelVersions` already refused a missing one).
 */
export function contractProblems(previous: RecordContracts, models: readonly ModelInfo[]): string[] {
  const problems: string[] = [];
  for (const info of models) {
    const before = previous[info.name];
    if (!before) continue;
    const version = info.upgrade.version;
    if (version < before.version) {
      problems.push(
        `${info.name}: version went down from ${before.version} to ${version}; records stored under version ${before.version} cannot be read back by older steps`,
      );
      continue;
    }
    if (version > before.version) continue;
    const defaults = new Set(Object.keys(info.upgrade.defaults));
    for (const field of info.schema.required ?? []) {
      if (defaults.has(field)) continue;
      const wasRequired = field in before.fields && before.required.includes(field);
      if (wasRequired) continue;
      problems.push(
        `${info.name}.${field}: a required field ${field in before.fields ? "that was optional" : "added"} with neither a default nor an upgrade step: records stored before this build lack it and would be served without it, against the published contract. Give it a \`default\`, or ${fix(info, version)}.`,
      );
    }
    for (const [field, schema] of Object.entries(info.schema.properties)) {
      const was = before.fields[field];
      if (!was) continue;
      const now = fieldShape(schema);
      // A type only one of them states is not a change of type (a one-literal union states none).
      if (now.type !== undefined && was.type !== undefined && JSON.stringify(now.type) !== JSON.stringify(was.type)) {
        problems.push(
          `${info.name}.${field}: its type changed from ${JSON.stringify(was.type)} to ${JSON.stringify(now.type)}: records stored before hold the old type. ${cap(fix(info, version, "converts their values"))}.`,
        );
        continue;
      }
      const lost = was.values && now.values ? was.values.filter((v) => !now.values?.some((n) => JSON.stringify(n) === JSON.stringify(v))) : [];
      if (lost.length > 0 || (!was.values && now.values)) {
        const what = lost.length > 0 ? `no longer allows ${lost.map((v) => JSON.stringify(v)).join(", ")}` : "now allows only listed values";
        problems.push(
          `${info.name}.${field}: ${what}: records stored before may hold ${lost.length > 0 ? "them" : "others"}. ${cap(fix(info, version, "maps them to allowed ones"))}.`,
        );
      }
    }
  }
  return problems;
}

const cap = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
