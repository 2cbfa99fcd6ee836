import type { CompareOperator, Direction, Expression, OrderBy, Query, Value } from "./ast.ts";
import { queryError } from "./fail.ts";
import { RESERVED } from "./keywords.ts";
import { Lexer, type Token } from "./lexer.ts";
import { likePatternProblem } from "./like.ts";
import { DEFAULT_FILTER_LIMITS, MAX_NESTING, type FilterLimits } from "./limits.ts";
import { setColumn } from "./positions.ts";

/**
 * Parses a full query; empty or blank text is a query for every record. `limits` (each defaulting
 * to `DEFAULT_FILTER_LIMITS`) bound the filter's width.
 */
export function parseQuery(text: string, limits: Partial<FilterLimits> = {}): Query {
  const parser = new Parser(text, limits);
  return parser.query();
}

/** Parses a bare expression (no ORDER BY, LIMIT or OFFSET); undefined for blank text. */
export function parseFilter(text: string, limits: Partial<FilterLimits> = {}): Expression | undefined {
  const parser = new Parser(text, limits);
  return parser.filter();
}

const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

class Parser {
  private readonly lexer: Lexer;
  /** The one token of lookahead. */
  private current: Token;
  /** Open parentheses and NOTs around the current position: bounded, so recursion is too. */
  private depth = 0;
  private readonly limits: FilterLimits;
  /** The filter's width so far, against `limits`. */
  private readonly width: FilterLimits = { terms: 0, orBranches: 0, inValues: 0 };

  constructor(text: string, limits: Partial<FilterLimits>) {
    this.limits = { ...DEFAULT_FILTER_LIMITS, ...limits };
    this.lexer = new Lexer(text);
    this.current = this.lexer.next();
  }

  /** Counts one more of `what`; past its limit the filter is refused at `column`, before more text is read. */
  private widen(what: keyof FilterLimits, by: number, column: number): void {
    this.width[what] += by;
    const limit = this.limits[what];
    if (this.width[what] > limit) {
      throw queryError(`the filter has more than ${limit} ${WIDTH_NAMES[what]}; at most ${limit} are allowed at column ${column}`);
    }
  }

  query(): Query {
    const where = this.startsClause() ? undefined : this.or();
    const query: Query = { orderBy: [] };
    if (where !== undefined) query.where = where;
    if (this.acceptKeyword("ORDER")) {
      this.expectKeyword("BY", "BY after ORDER");
      query.orderBy = this.orderList();
    }
    if (this.acceptKeyword("LIMIT")) query.limit = this.limit();
    if (this.acceptKeyword("OFFSET")) query.offset = this.offset();
    this.expectEnd(this.endExpectation(query));
    return query;
  }

  filter(): Expression | undefined {
    if (this.peek().kind === "end") return undefined;
    const expression = this.or();
    this.expectEnd("AND, OR or the end of the filter");
    return expression;
  }

  private startsClause(): boolean {
    const token = this.peek();
    return token.kind === "end" || isKeyword(token, "ORDER") || isKeyword(token, "LIMIT") || isKeyword(token, "OFFSET");
  }

  /** Names what could still follow, so trailing garbage gets a precise message. */
  private endExpectation(query: Query): string {
    const options: string[] = [];
    if (query.orderBy.length === 0 && query.limit === undefined && query.offset === undefined) {
      if (query.where !== undefined) options.push("AND", "OR");
      options.push("ORDER BY");
    } else if (query.orderBy.length > 0 && query.limit === undefined && query.offset === undefined) {
      options.push("','");
    }
    if (query.limit === undefined && query.offset === undefined) options.push("LIMIT");
    if (query.offset === undefined) options.push("OFFSET");
    options.push("the end of the query");
    const last = options.pop() ?? "";
    return options.length === 0 ? last : `${options.join(", ")} or ${last}`;
  }

  private or(): Expression {
    const operands = [this.and()];
    for (let keyword = this.peek(); this.acceptKeyword("OR"); keyword = this.peek()) {
      this.widen("orBranches", operands.length === 1 ? 2 : 1, keyword.column);
      operands.push(this.and());
    }
    return operands.length === 1 && operands[0] ? operands[0] : { kind: "or", operands };
  }

  private and(): Expression {
    const operands = [this.unary()];
    while (this.acceptKeyword("AND")) operands.push(this.unary());
    return operands.length === 1 && operands[0] ? operands[0] : { kind: "and", operands };
  }

  private unary(): Expression {
    const token = this.peek();
    if (this.acceptKeyword("NOT")) return { kind: "not", operand: this.nested(token, () => this.unary()) };
    if (this.acceptPunct("(")) {
      return this.nested(token, () => {
        const inner = this.or();
        this.expectPunct(")", "AND, OR or ')'");
        return inner;
      });
    }
    return this.predicate();
  }

  private nested(opening: Token, parse: () => Expression): Expression {
    if (++this.depth > MAX_NESTING) {
      throw queryError(`the filter nests more than ${MAX_NESTING} levels of parentheses and NOT at column ${opening.column}`);
    }
    const expression = parse();
    this.depth--;
    return expression;
  }

  private predicate(): Expression {
    const fieldToken = this.peek();
    const field = this.field("a field name, NOT or '('");
    const column = fieldToken.column;
    this.widen("terms", 1, column);
    const token = this.peek();
    if (token.kind === "operator") {
      this.next();
      const value = this.value(`after '${token.text}'`);
      return setColumn({ kind: "compare", field, operator: token.text as CompareOperator, value }, column);
    }
    if (this.acceptKeyword("LIKE")) {
      const pattern = this.next();
      if (pattern.kind !== "string") throw this.unexpected(pattern, "a quoted pattern after LIKE");
      const problem = likePatternProblem(pattern.value);
      if (problem !== undefined) throw queryError(`${problem} at column ${pattern.column}`);
      return setColumn({ kind: "like", field, pattern: pattern.value }, column);
    }
    if (this.acceptKeyword("IN")) {
      this.expectPunct("[", "'[' after IN");
      const values = [this.inValue("after '['")];
      while (this.acceptPunct(",")) values.push(this.inValue("after ','"));
      this.expectPunct("]", "',' or ']'");
      return setColumn({ kind: "in", field, values }, column);
    }
    if (this.acceptKeyword("CONTAINS")) {
      return setColumn({ kind: "contains", field, value: this.value("after CONTAINS") }, column);
    }
    if (this.acceptKeyword("IS")) {
      const negated = this.acceptKeyword("NOT");
      this.expectKeyword("NULL", negated ? "NULL after IS NOT" : "NULL or NOT after IS");
      return setColumn({ kind: "isNull", field, negated }, column);
    }
    throw this.unexpected(token, `an operator (=, !=, <, <=, >, >=, LIKE, IN, CONTAINS or IS) after '${field}'`);
  }

  private field(expected: string): string {
    const token = this.next();
    if (token.kind !== "word" || RESERVED.has(token.text.split(".")[0]?.toUpperCase() ?? "")) {
      throw this.unexpected(token, expected);
    }
    return token.text;
  }

  private value(context: string): Value {
    const token = this.next();
    if (token.kind === "string" || token.kind === "number") return token.value;
    if (isKeyword(token, "TRUE")) return true;
    if (isKeyword(token, "FALSE")) return false;
    const hint = isKeyword(token, "NULL") ? " (use IS NULL to test for null)" : "";
    throw this.unexpected(token, `a value ${context}`, hint);
  }

  private inValue(context: string): Value {
    this.widen("inValues", 1, this.peek().column);
    return this.value(context);
  }

  private orderList(): OrderBy[] {
    const list: OrderBy[] = [];
    do {
      const column = this.peek().column;
      const field = this.field(list.length === 0 ? "a field name after ORDER BY" : "a field name after ','");
      let direction: Direction = "ASC";
      if (this.acceptKeyword("DESC")) direction = "DESC";
      else this.acceptKeyword("ASC");
      list.push(setColumn({ field, direction }, column));
    } while (this.acceptPunct(","));
    return list;
  }

  private limit(): number {
    const token = this.next();
    const valid = token.kind === "number" && /^[0-9]+$/.test(token.text) && token.value > 0 && token.value <= MAX_LIMIT;
    if (!valid) throw this.unexpected(token, "a positive integer after LIMIT");
    return token.value;
  }

  private offset(): string {
    const token = this.next();
    if (token.kind !== "string") throw this.unexpected(token, "a quoted token after OFFSET");
    return token.value;
  }

  private peek(): Token {
    return this.current;
  }

  private next(): Token {
    const token = this.current;
    if (token.kind !== "end") this.current = this.lexer.next();
    return token;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!isKeyword(this.peek(), keyword)) return false;
    this.next();
    return true;
  }

  private expectKeyword(keyword: string, expected: string): void {
    if (!this.acceptKeyword(keyword)) throw this.unexpected(this.peek(), expected);
  }

  private acceptPunct(text: string): boolean {
    const token = this.peek();
    if (token.kind !== "punct" || token.text !== text) return false;
    this.next();
    return true;
  }

  private expectPunct(text: string, expected: string): void {
    if (!this.acceptPunct(text)) throw this.unexpected(this.peek(), expected);
  }

  private expectEnd(expected: string): void {
    const token = this.peek();
    if (token.kind !== "end") throw this.unexpected(token, expected);
  }

  private unexpected(token: Token, expected: string, hint = ""): Error {
    const found = token.kind === "end" ? "" : `, found ${describe(token)}`;
    return queryError(`expected ${expected} at column ${token.column}${found}${hint}`);
  }
}

const WIDTH_NAMES: Record<keyof FilterLimits, string> = {
  terms: "terms (comparisons, LIKE, IN, CONTAINS, IS NULL)",
  orBranches: "OR branches",
  inValues: "IN values",
};

function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === "word" && token.text.toUpperCase() === keyword;
}

function describe(token: Exclude<Token, { kind: "end" }>): string {
  switch (token.kind) {
    case "string":
      return `the string ${JSON.stringify(token.value)}`;
    case "number":
      return `'${token.text}'`;
    default:
      return `'${token.text}'`;
  }
}
