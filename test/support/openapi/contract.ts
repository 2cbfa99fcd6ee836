import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const loaded = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = loaded.default ?? loaded;

type Json = Record<string, unknown>;

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, `/posts/{slug}`. */
  path: string;
  spec: Json;
}

/** One request and the answer it got, as the checker sees them. */
export interface Exchange {
  operationId: string;
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The JSON request body sent, when it was JSON. */
  requestBody?: unknown;
  /** The server took the body (2xx) or refused it for what it says (a 400 naming a field). */
  bodyVerdict?: "accepted" | "refused";
}

const DOC_ID = "https://modelrest.local/openapi.json";

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
/** Keywords whose value maps names to schemas (a map is not itself a schema to close). */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas", "schemas"]);

/**
 * A copy of the document in which every object schema that does not say otherwise admits no
 * property it does not list (`unevaluatedProperties: false`, which sees through allOf/anyOf), and
 * every local `$ref` points into the registered document: "no undocumented properties" is then
 * just schema validation.
 */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === "examples" || k === "example") out[k] = v;
    else if (k === "$ref" && typeof v === "string" && v.startsWith("#/")) out[k] = `${DOC_ID}${v}`;
    else if (SCHEMA_MAPS.has(k) && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, schema]) => [name, closed(schema)]));
    else out[k] = closed(v);
  }
  const objectSchema = out.type === "object" || isObject(out.properties);
  if (objectSchema && !("additionalProperties" in out) && !("unevaluatedProperties" in out)) out.unevaluatedProperties = false;
  return out;
}

/**
 * Checks live answers against an OpenAPI 3.1 document with ajv's 2020-12 dialect and formats:
 * the status is listed, the content type is the documented one (or there is no body where none is
 * documented), documented required headers are present, the body validates with no undocumented
 * property; and a request body the server accepted validates against the request schema, one it
 * refused as invalid does not.
 */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly byId = new Map<string, Operation>();
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...(closed(document) as Json), $id: DOC_ID });
    for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
      for (const [method, spec] of Object.entries(item)) {
        if (!isObject(spec) || typeof spec.operationId !== "string") continue;
        this.byId.set(spec.operationId, { operationId: spec.operationId, method: method.toUpperCase(), path, spec });
      }
    }
  }

  operations(): Operation[] {
    return [...this.byId.values()];
  }

  operation(id: string): Operation {
    const op = this.byId.get(id);
    if (!op) throw new Error(`the document has no operation ${id}`);
    return op;
  }

  /** Statuses the operation lists, as numbers. */
  statuses(id: string): number[] {
    return Object.keys((this.operation(id).spec.responses ?? {}) as Json)
      .map(Number)
      .sort((a, b) => a - b);
  }

  private resolve(value: unknown): Json | undefined {
    if (!isObject(value)) return undefined;
    if (typeof value.$ref !== "string") return value;
    let node: unknown = this.document;
    for (const part of value.$ref.replace(/^#\//, "").split("/")) node = isObject(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    return this.resolve(node);
  }

  private validator(schema: Json): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(closed(schema) as Json);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  private schemaErrors(schema: Json, value: unknown): string | undefined {
    const validate = this.validator(schema);
    if (validate(value)) return undefined;
    return this.ajv.errorsText(validate.errors, { separator: "; " });
  }

  /** An answer that belongs to no operation (405, 404 of an unknown path): JSON against a schema. */
  checkBody(label: string, schema: Json, answer: { headers: Record<string, string>; bodyText: string }): string[] {
    const media = (answer.headers["content-type"] ?? "").split(";")[0]?.trim();
    if (media !== "application/json") return [`${label}: content type '${media}' is not application/json`];
    let body: unknown;
    try {
      body = JSON.parse(answer.bodyText);
    } catch {
      return [`${label}: body is not JSON`];
    }
    const error = this.schemaErrors(schema, body);
    return error ? [`${label}: body ${error}`] : [];
  }

  /** The mismatches of one exchange; empty when the answer is what the document says. */
  check(exchange: Exchange): string[] {
    const op = this.byId.get(exchange.operationId);
    const where = `${exchange.operationId} ${exchange.status}`;
    if (!op) return [`${where}: operation not in the document`];
    const mismatches: string[] = [];
    const response = this.resolve((op.spec.responses as Json | undefined)?.[String(exchange.status)]);
    if (!response) return [`${where}: status not listed (listed: ${this.statuses(op.operationId).join(", ")})`];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      const spec = this.resolve(header);
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (spec?.required === true) mismatches.push(`${where}: required header ${name} missing`);
        continue;
      }
      const error = isObject(spec?.schema) ? this.schemaErrors(spec.schema, value) : undefined;
      if (error) mismatches.push(`${where}: header ${name}: ${error}`);
    }
    const content = response.content as Record<string, Json> | undefined;
    if (!content) {
      if (exchange.bodyText !== "") mismatches.push(`${where}: a body where the document says there is none`);
    } else {
      const media = (exchange.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
      const documented = content[media];
      if (!documented) mismatches.push(`${where}: content type '${media}' not documented (${Object.keys(content).join(", ")})`);
      else if (isObject(documented.schema)) {
        let body: unknown;
        try {
          body = JSON.parse(exchange.bodyText);
        } catch {
          mismatches.push(`${where}: body is not JSON`);
        }
        const error = body === undefined ? undefined : this.schemaErrors(documented.schema, body);
        if (error) mismatches.push(`${where}: body ${error}`);
      }
    }
    if (exchange.bodyVerdict && exchange.requestBody !== undefined) {
      const schema = this.resolve(
        this.resolve(op.spec.requestBody)?.content && (this.resolve(op.spec.requestBody)?.content as Json)["application/json"],
      )?.schema;
      if (!isObject(schema)) mismatches.push(`${where}: a request body the document does not describe`);
      else {
        const error = this.schemaErrors(schema, exchange.requestBody);
        if (exchange.bodyVerdict === "accepted" && error) mismatches.push(`${where}: the server accepted a body the document refuses: ${error}`);
        if (exchange.bodyVerdict === "refused" && !error) mismatches.push(`${where}: the server refused a body the document accepts`);
      }
    }
    return mismatches;
  }
}
