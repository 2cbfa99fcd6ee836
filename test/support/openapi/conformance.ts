import type { ContractChecker, Exchange, Operation } from "./contract.ts";

/** What a transport (fetch against `npm start`, or the handler in process) returns. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** Each Set-Cookie apart (a headers object joins them). */
  cookies?: string[];
}

export type Transport = (method: string, path: string, headers: Record<string, string>, body: string | undefined) => Promise<Answer>;

/** One request of a case: the operation it exercises and the status it must produce. */
export interface Call {
  operationId: string;
  expect: number;
  /** Statuses that are no failure either (a throttle whose timing the test does not control). */
  alsoOk?: number[];
  /** The concrete path, `/posts/hello`. */
  path: string;
  /** The signed-in caller (the local `x-test-user` seam until the authentication service lands). */
  user?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A body sent as is, with `contentType` (413 and 415 cases). */
  rawBody?: string;
  contentType?: string;
  /** The body is invalid on purpose: the document must refuse it too. */
  invalidBody?: boolean;
}

export interface Result {
  status: number;
  headers: Record<string, string>;
  json: unknown;
  cookies: string[];
}

/**
 * Sends calls, checks each answer against the document, and keeps the tally: calls made, statuses
 * produced per operation, mismatches (the answer contradicts the document) and case failures (the
 * server did not produce the status the case expects).
 */
export class Conformance {
  readonly exchanges: Exchange[] = [];
  readonly mismatches: string[] = [];
  readonly failures: string[] = [];
  readonly produced = new Map<string, Set<number>>();
  /** The first successful call of each operation, to replay against a failing store. */
  readonly successes = new Map<string, Call>();
  calls = 0;

  constructor(
    readonly checker: ContractChecker,
    private readonly transport: Transport,
  ) {}

  async call(c: Call): Promise<Result> {
    const op = this.checker.operation(c.operationId);
    const text = c.rawBody ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
    const headers: Record<string, string> = {
      ...(text !== undefined ? { "content-type": c.contentType ?? "application/json" } : {}),
      ...(c.user ? { "x-test-user": c.user } : {}),
      ...c.headers,
    };
    const answer = await this.transport(op.method, c.path, headers, text);
    this.calls++;
    const exchange: Exchange = { operationId: c.operationId, status: answer.status, headers: answer.headers, bodyText: answer.bodyText };
    if (c.rawBody === undefined && c.body !== undefined) {
      exchange.requestBody = c.body;
      if (answer.status < 300) exchange.bodyVerdict = "accepted";
      else if (c.invalidBody && answer.status === 400) exchange.bodyVerdict = "refused";
    }
    this.exchanges.push(exchange);
    this.mismatches.push(...this.checker.check(exchange));
    if (answer.status !== c.expect && !c.alsoOk?.includes(answer.status)) {
      this.failures.push(
        `${c.operationId} ${op.method} ${c.path} as ${c.user ? "a user" : "anonymous"}: expected ${c.expect}, got ${answer.status} ${answer.bodyText.slice(0, 200)}`,
      );
    }
    if (answer.status < 300 && c.expect === answer.status && !this.successes.has(c.operationId)) this.successes.set(c.operationId, c);
    const seen = this.produced.get(c.operationId) ?? new Set<number>();
    seen.add(answer.status);
    this.produced.set(c.operationId, seen);
    let json: unknown;
    try {
      json = answer.bodyText ? (JSON.parse(answer.bodyText) as unknown) : undefined;
    } catch {
      json = undefined;
    }
    return { status: answer.status, headers: answer.headers, json, cookies: answer.cookies ?? [] };
  }

  /** Statuses an operation lists but no call produced (except those another suite produces). */
  unproduced(elsewhere: ReadonlySet<number>, skip: (op: Operation) => boolean = () => false): string[] {
    const missing: string[] = [];
    for (const op of this.checker.operations()) {
      if (skip(op)) continue;
      const seen = this.produced.get(op.operationId) ?? new Set<number>();
      for (const status of this.checker.statuses(op.operationId)) {
        if (!seen.has(status) && !elsewhere.has(status)) missing.push(`${op.operationId} ${status}`);
      }
    }
    return missing;
  }

  /** Re-checks every recorded answer against another document (the drift check). */
  recheck(checker: ContractChecker): string[] {
    return this.exchanges.flatMap((e) => checker.check(e));
  }
}
