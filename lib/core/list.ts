import { parseFilter, parseQuery, planDynamoQuery, checkExpression, checkQuery, expressionFields, printExpression, type Expression } from "./query-language.ts";
import { listEachOf, type ByteBudget, type Cursor, type KeyValue, type ListRequest, type Repository } from "./repository.ts";
import type { Context } from "./context.ts";
import type { ContinuationSealer } from "./continuation.ts";
import { BadQueryError } from "./errors.ts";
import type { Listing } from "./listing.ts";
import type { ModelInfo } from "./model-info.ts";
import { assertFilterable } from "./fields.ts";
import { payloadBytes } from "./json-bytes.ts";
import type { Permissions } from "./permission.ts";
import { PARTITION_KEY_BYTES, SORT_KEY_BYTES, toOutput, type Item } from "./records.ts";
import { recordFilterShape } from "./filter-shapes.ts";
import { scopedQuery } from "./scoped-query.ts";

/** Lambda answers at most 6 MB; a page's records stay under this, leaving room for the envelope. */
export const DEFAULT_PAGE_BYTES = 5 * 1024 * 1024;

/**
 * Stored records one list request may evaluate (read before filter and permission) unless the model
 * says otherwise (`static limits.maxRead`): a filter that matches nothing costs this much, not the
 * table. About 1 to 2 MB of typical records, a handful of DynamoDB calls. No larger than a table of
 * 1,000 rows, so that such a filter costs the same on 1,000 rows as on millions (bench: scale).
 */
export const DEFAULT_READ_BUDGET = 1000;

/**
 * Records' JSON one response may carry across all its lists (GraphQL aliases and relation lists
 * draw from the same budget): fifteen aliased 5 MiB pages answered 10 MiB, which Lambda refuses.
 */
export const RESPONSE_BYTES = 5 * 1024 * 1024;

const responseBudgets = new WeakMap<Context, ByteBudget>();

/** The byte budget of the request `ctx` belongs to (a context lives for one request or event). */
function responseBudget(ctx: Context): ByteBudget {
  let budget = responseBudgets.get(ctx);
  if (!budget) responseBudgets.set(ctx, (budget = { remaining: RESPONSE_BYTES, spent: 0 }));
  return budget;
}

export interface ListArguments {
  /** A query-language string; empty means every record. */
  q?: string;
  limit?: number;
  /** The continuationToken of the previous page. */
  offset?: string | null;
}

export interface ListResult {
  results: Item[];
  continuationToken: string | null;
  /**
   * Stored records this page examined (before the filter and permission). A sparse filter answers
   * short pages, even empty ones, with a token: the listing ends only when the token is null.
   */
  scanned: number;
}

function checkLimit(info: ModelInfo, limit: unknown, path: string): number {
  const { max } = info.limits;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > max) {
    const message = `limit must be an integer from 1 to ${max}`;
    throw new BadQueryError(message, [{ path, message }]);
  }
  return limit;
}

function isCursor(value: unknown): value is Cursor {
  return (
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string" || typeof v === "number")
  );
}

/** A listing checked and ready to read: what the store is asked, and the scope its token is sealed to. */
interface PreparedList {
  where?: Expression;
  orderBy: ReturnType<typeof parseQuery>["orderBy"];
  limit: number;
  after?: Cursor;
  scope: string;
}

function prepareList(ctx: Context, info: ModelInfo, sealer: ContinuationSealer, args: ListArguments): PreparedList {
  const query = parseQuery(args.q ?? "", info.limits.filter);
  checkQuery(query, info.outputSchema);
  assertFilterable(ctx, info, [...(query.where ? expressionFields(query.where) : []), ...query.orderBy.map((o) => o.field)]);
  if (query.where) assertKeyValueSizes(info, query.where);
  const limit =
    args.limit !== undefined ? checkLimit(info, args.limit, "/limit") : query.limit !== undefined ? checkLimit(info, query.limit, "/q") : info.limits.default;
  const plan = planDynamoQuery({ ...(query.where ? { where: query.where } : {}), orderBy: query.orderBy }, info.table);
  if (query.where && plan.kind === "scan") assertScanAllowed(ctx, info);
  const scope = JSON.stringify([info.name, query.where ? printExpression(query.where) : "", query.orderBy]);
  const offset = args.offset ?? query.offset;
  let after: Cursor | undefined;
  if (offset) {
    const opened = sealer.open(scope, offset);
    if (!isCursor(opened)) throw new BadQueryError("the continuation token is invalid");
    after = opened;
  }
  return { ...(query.where ? { where: query.where } : {}), orderBy: query.orderBy, limit, ...(after ? { after } : {}), scope };
}

/**
 * A page's answer. Its continuation token is sealed (AES-GCM, a tenth of a 50-record GraphQL
 * request) when first read: a GraphQL selection without it, or a relation's page nobody pages
 * on, never pays for it. JSON.stringify and GraphQL's field resolution read it like any member.
 */
function pageResult(results: Item[], seal: (() => string) | undefined, scanned = results.length): ListResult {
  if (!seal) return { results, continuationToken: null, scanned };
  let token: string | undefined;
  return {
    results,
    scanned,
    get continuationToken(): string {
      return (token ??= seal());
    },
  };
}

/** What every page of `info` is read with: the caller's read permission and the byte budget. */
function readRequest(
  ctx: Context,
  info: ModelInfo,
  permissions: Permissions,
): Pick<ListRequest, "accept" | "maxBytes" | "sizeOf" | "maxRead" | "responseBytes"> & { output: (item: Item) => Item } {
  // Each record's output is computed once: measured for the byte budget (counted, not written),
  // then returned to be written with the response.
  const outputs = new WeakMap<Item, Item>();
  const output = (item: Item): Item => {
    let shown = outputs.get(item);
    if (!shown) outputs.set(item, (shown = toOutput(ctx, info, item)));
    return shown;
  };
  return {
    accept: async (items) => (await permissions.decideMany(info, items, "read")).map((d) => d === true),
    maxBytes: info.limits.maxBytes ?? DEFAULT_PAGE_BYTES,
    maxRead: info.limits.maxRead ?? DEFAULT_READ_BUDGET,
    responseBytes: responseBudget(ctx),
    // Measured as Lambda's response payload holds it (the body is a JSON string there, so each `"`
    // and `\` counts twice): 5 MiB of JSON text alone could pass 6 MB once escaped.
    sizeOf: (item) => payloadBytes(output(item)) + 1,
    output,
  };
}

/**
 * Query-language listing: parse, check fields and values against the model, refuse orders no index
 * serves (the same rule whatever the store), read through the store with the caller's read
 * permission applied as the page fills, seal the resume point into the continuation token.
 */
export async function listRecords(
  ctx: Context,
  info: ModelInfo,
  repository: Repository,
  sealer: ContinuationSealer,
  permissions: Permissions,
  args: ListArguments,
): Promise<ListResult> {
  const { where, orderBy, limit, after, scope } = prepareList(ctx, info, sealer, args);
  const { output, ...read } = readRequest(ctx, info, permissions);
  const page = await repository.list({ ...(where ? { where } : {}), orderBy, limit, ...(after ? { after } : {}), ...read });
  const { next } = page;
  if (where && page.scanned !== undefined) recordFilterShape(info.name, info.table, where, orderBy, page.scanned, page.items.length);
  return pageResult(page.items.map(output), next ? () => sealer.seal(scope, next) : undefined, page.scanned);
}

/**
 * The first page of `q` scoped to each of `scopes` (the key of each parent in view, as child
 * attributes): the same answers, token scopes included, as `listRecords` with `scopedQuery(scope,
 * q)` for each, read together through the store's `listEach` by `field` (an attribute every scope
 * binds), each scope's answer or error apart. A query that resumes (OFFSET) belongs to one parent,
 * and a `field` no key of the child partitions would be a Scan per parent anyway: both are listed
 * scope by scope.
 */
export async function listEach(
  ctx: Context,
  info: ModelInfo,
  repository: Repository,
  sealer: ContinuationSealer,
  permissions: Permissions,
  field: string,
  scopes: Readonly<Record<string, KeyValue>>[],
  args: ListArguments,
): Promise<PromiseSettledResult<ListResult>[]> {
  const queries = scopes.map((scope) => ({ ...args, q: scopedQuery(scope, args.q ?? "", info.limits.filter) }));
  const prepared: PreparedList[] = [];
  const partitioned = info.table.key.hash === field || info.table.indexes.some((i) => i.hash === field);
  try {
    for (const query of queries) prepared.push(prepareList(ctx, info, sealer, query));
  } catch {
    // Each parent answers its own error (a token opens for one parent only), as it did alone.
    prepared.length = 0;
  }
  const first = prepared[0];
  if (!first || first.after || !partitioned) {
    return Promise.allSettled(queries.map((query) => listRecords(ctx, info, repository, sealer, permissions, query)));
  }
  const { output, ...read } = readRequest(ctx, info, permissions);
  const pages = await listEachOf(repository, {
    field,
    scopes: scopes.map((scope, i) => ({ value: scope[field] as KeyValue, where: (prepared[i] as PreparedList).where })),
    orderBy: first.orderBy,
    limit: first.limit,
    ...read,
  });
  return pages.map(({ items, next, scanned }, i) => ({
    status: "fulfilled",
    value: pageResult(items.map(output), next ? () => sealer.seal((prepared[i] as PreparedList).scope, next) : undefined, scanned),
  }));
}

/** A model's `keyedFilters` refuses a filter its keys do not serve, naming those that would. */
function assertScanAllowed(ctx: Context, info: ModelInfo): void {
  const rule = info.limits.keyedFilters;
  if (rule === undefined || (rule === "anonymous" && ctx.getCurrentUserId() !== undefined)) return;
  const served = [`${info.table.key.hash} (the key)`, ...info.table.indexes.map((i) => `${i.hash} (index ${i.name})`)];
  const message = `this filter is not served by a key of ${info.name}: filter with equality on ${served.join(", ")}`;
  throw new BadQueryError(message, [{ path: "/q", message }]);
}

/**
 * A value compared with a key attribute (of the table or an index) longer than DynamoDB lets a key
 * be is refused before the read: DynamoDB would refuse the request, and no record could match.
 */
function assertKeyValueSizes(info: ModelInfo, where: Expression): void {
  const maxBytes = new Map<string, number>();
  for (const key of [info.table.key, ...info.table.indexes]) {
    maxBytes.set(key.hash, Math.min(maxBytes.get(key.hash) ?? PARTITION_KEY_BYTES, PARTITION_KEY_BYTES));
    if (key.range) maxBytes.set(key.range, SORT_KEY_BYTES);
  }
  const problems: string[] = [];
  const visit = (node: Expression): void => {
    if (node.kind === "and" || node.kind === "or") node.operands.forEach(visit);
    else if (node.kind === "not") visit(node.operand);
    else if (maxBytes.has(node.field)) {
      const max = maxBytes.get(node.field) as number;
      const values =
        node.kind === "compare" || node.kind === "contains" ? [node.value] : node.kind === "in" ? node.values : node.kind === "like" ? [node.pattern] : [];
      if (values.some((v) => typeof v === "string" && Buffer.byteLength(v) > max)) {
        problems.push(`a value compared with '${node.field}' is longer than the ${max} bytes this key may hold`);
      }
    }
  };
  visit(where);
  if (problems.length > 0)
    throw new BadQueryError(
      problems[0] as string,
      problems.map((message) => ({ path: "/q", message })),
    );
}

/**
 * A filter (query-language expression, no ORDER BY/LIMIT) checked against the model's fields and
 * against what the caller may read.
 */
export function checkedFilter(ctx: Context, info: ModelInfo, text: string): Expression | undefined {
  const expression = parseFilter(text, info.limits.filter);
  if (expression) {
    checkExpression(expression, info.outputSchema);
    assertFilterable(ctx, info, expressionFields(expression));
  }
  return expression;
}

/** The domain's listing: what an application that lists is composed with (ApplicationParts.listing). */
export const domainListing: Listing = { list: listRecords, listEach, filter: checkedFilter };
