import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from "graphql";
import { GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED } from "./errors.ts";
import { costErrors, UNKNOWN, type Variables } from "./limits-cost.ts";
import { analyseLimits, type LimitAnalysis } from "./limits.ts";
import type { GraphQLLimits } from "./service.ts";

interface Entry {
  document?: DocumentNode;
  syntaxError?: GraphQLError;
}

// graphql 16 words it "more that N tokens"; accept the corrected spelling too.
const TOKEN_LIMIT = /contains more th(?:at|an) \d+ tokens/i;

function coded(error: GraphQLError, code: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(error.message, {
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.originalError ? { originalError: error.originalError } : {}),
    extensions: { ...error.extensions, code: error.extensions.code ?? code, ...extra },
  });
}

/**
 * Parsed and validated documents by query text, least recently used first out. graphql-helix
 * parses and validates every request by default; these replace its `parse` and `validate` so a
 * repeated query costs two map lookups. A document's validation result (standard rules, the
 * introspection switch and the abuse limits) is kept with the document itself, with the analysis
 * of its cost, which each request evaluates with its own variables (`forRequest`).
 */
export class DocumentCache {
  private readonly entries = new Map<string, Entry>();
  private readonly validated = new WeakMap<DocumentNode, { standard: readonly GraphQLError[] } | LimitAnalysis>();
  private readonly rules: readonly ValidationRule[];
  private readonly size: number;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: GraphQLLimits,
    options: { introspection: boolean; size: number },
  ) {
    this.rules = options.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    this.size = options.size;
  }

  /** Throws the (cached) syntax error, coded GRAPHQL_PARSE_FAILED or TOO_MANY_TOKENS. */
  parse = (source: string): DocumentNode => {
    const entry = this.entries.get(source) ?? this.parseNew(source);
    this.remember(source, entry);
    if (entry.syntaxError) throw entry.syntaxError;
    return entry.document as DocumentNode;
  };

  /**
   * Validation without the request's variables (a subscription's document checked on its own):
   * each variable counts as the largest value it could hold.
   */
  validate = (schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] => this.check(schema, document, UNKNOWN);

  /** Validation for one request: the cost counts its variables' values (null or absent: the default). */
  forRequest(variables: Readonly<Record<string, unknown>> | undefined): (schema: GraphQLSchema, document: DocumentNode) => readonly GraphQLError[] {
    return (schema, document) => this.check(schema, document, variables ?? {});
  }

  /** Standard rules and the limits' analysis run once per document; the cost is evaluated per call. */
  private check(schema: GraphQLSchema, document: DocumentNode, variables: Variables): readonly GraphQLError[] {
    let entry = this.validated.get(document);
    if (!entry) {
      this.validations++;
      const standard = validate(schema, document, this.rules).map((e) => coded(e, GRAPHQL_VALIDATION_FAILED));
      entry = standard.length > 0 ? { standard } : analyseLimits(schema, document, this.limits);
      this.validated.set(document, entry);
    }
    if ("standard" in entry) return entry.standard;
    const costly = costErrors(entry.costs, variables, this.limits);
    return costly.length > 0 ? [...entry.errors, ...costly] : entry.errors;
  }

  /** Documents validated so far (each once however often it is asked): for tests and measurements. */
  validations = 0;

  private parseNew(source: string): Entry {
    try {
      return { document: parse(source, { maxTokens: this.limits.maxTokens }) };
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return {
        syntaxError: TOKEN_LIMIT.test(error.message) ? coded(error, "TOO_MANY_TOKENS", { limit: this.limits.maxTokens }) : coded(error, GRAPHQL_PARSE_FAILED),
      };
    }
  }

  /** Re-inserting moves the entry to the most recently used end of the Map's order. */
  private remember(source: string, entry: Entry): void {
    if (this.size === 0) return;
    this.entries.delete(source);
    this.entries.set(source, entry);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** For tests and measurements. */
  get cached(): number {
    return this.entries.size;
  }
}
