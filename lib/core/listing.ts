import type { Expression } from "../query/ast.ts";
import type { KeyValue, Repository } from "./repository.ts";
import type { Context } from "./context.ts";
import type { ContinuationSealer } from "./continuation.ts";
import type { ListArguments, ListResult } from "./list.ts";
import type { ModelInfo } from "./model-info.ts";
import type { Permissions } from "./permission.ts";

/** What the domain lists with (lib/core/list.ts): the query language, its checks and the paging. */
export interface Listing {
  list(ctx: Context, info: ModelInfo, repository: Repository, sealer: ContinuationSealer, permissions: Permissions, args: ListArguments): Promise<ListResult>;
  listEach(
    ctx: Context,
    info: ModelInfo,
    repository: Repository,
    sealer: ContinuationSealer,
    permissions: Permissions,
    field: string,
    scopes: Readonly<Record<string, KeyValue>>[],
    args: ListArguments,
  ): Promise<PromiseSettledResult<ListResult>[]>;
  filter(ctx: Context, info: ModelInfo, text: string): Expression | undefined;
}

/**
 * An application lists with the Listing it was composed with (ApplicationParts.listing, the
 * domain's own from ./list.ts): the functions that only read and write by key (the record read,
 * the session routes) are composed without it, so the query language and its planner (~30 KB,
 * compiled at every cold start) are not in their bundles.
 */
