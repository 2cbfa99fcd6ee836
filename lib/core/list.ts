import { parseQuery, planDynamoQuery, checkQuery, printExpression } from "../query/index.ts";
import type { Cursor, Repository } from "../store/repository.ts";
import type { Context } from "./context.ts";
import type { ContinuationSealer } from "./continuation.ts";
import { BadQueryError } from "./errors.ts";
import type { ModelInfo } from "./model-info.ts";
import { decide, toOutput, type Item } from "./records.ts";

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
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string" || typeof v === "number")
  );
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
  args: ListArguments,
): Promise<ListResult> {
  const query = parseQuery(args.q ?? "");
  checkQuery(query, info.outputSchema);
  const limit =
    args.limit !== undefined ? checkLimit(info, args.limit, "/limit")
    : query.limit !== undefined ? checkLimit(info, query.limit, "/q")
    : info.limits.default;
  planDynamoQuery({ ...(query.where ? { where: query.where } : {}), orderBy: query.orderBy }, info.table);
  const scope = JSON.stringify([info.name, query.where ? printExpression(query.where) : "", query.orderBy]);
  const offset = args.offset ?? query.offset;
  let after: Cursor | undefined;
  if (offset) {
    const opened = sealer.open(scope, offset);
    if (!isCursor(opened)) throw new BadQueryError("the continuation token is invalid");
    after = opened;
  }
  const page = await repository.list({
    ...(query.where ? { where: query.where } : {}),
    orderBy: query.orderBy,
    limit,
    ...(after ? { after } : {}),
    accept: (item) => decide(info, item, ctx, "read") === true,
  });
  return {
    results: page.items.map((item) => toOutput(ctx, info, item)),
    continuationToken: page.next ? sealer.seal(scope, page.next) : null,
  };
}
