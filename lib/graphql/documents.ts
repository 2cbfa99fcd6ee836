import {
  GraphQLError, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate,
  type DocumentNode, type GraphQLSchema, type ValidationRule,
} from "graphql";
import { GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED } from "./errors.ts";
import { checkLimits } from "./limits.ts";
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
 * introspection switch and the abuse limits) is kept with the document itself.
 */
export class DocumentCache {
  private readonly entries = new Map<string, Entry>();
  private readonly validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();
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

  validate = (schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] => {
    let errors = this.validated.get(document);
    if (!errors) {
      const standard = validate(schema, document, this.rules).map((e) => coded(e, GRAPHQL_VALIDATION_FAILED));
      errors = standard.length > 0 ? standard : checkLimits(schema, document, this.limits);
      this.validated.set(document, errors);
    }
    return errors;
  };

  private parseNew(source: string): Entry {
    try {
      return { document: parse(source, { maxTokens: this.limits.maxTokens }) };
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      return {
        syntaxError: TOKEN_LIMIT.test(error.message)
          ? coded(error, "TOO_MANY_TOKENS", { limit: this.limits.maxTokens })
          : coded(error, GRAPHQL_PARSE_FAILED),
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
