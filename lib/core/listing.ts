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
    ctx: Context, info: ModelInfo, repository: Repository, sealer: ContinuationSealer, permissions: Permissions,
    field: string, scopes: Readonly<Record<string, KeyValue>>[], args: ListArguments,
  ): Promise<PromiseSettledResult<ListResult>[]>;
  filter(ctx: Context, info: ModelInfo, text: string): Expression | undefined;
}

/**
 * Installed by the stores that list (lib/store/select.ts), as validators are installed: the
 * functions that only read and write by key (the record read, the session routes) choose their
 * store from lib/store/select-records.ts, so the query language and its planner (~30 KB, compiled
 * at every cold start) are not in their bundles.
 */
let installed: Listing | undefined;

/** `undefined` removes it: a test then runs a key-only function's code as that function has it. */
export function installListing(listing: Listing | undefined): void {
  installed = listing;
}

export function listing(): Listing {
  if (!installed) throw new Error("this function does not list: its store was chosen from lib/store/select-records.ts (lib/store/select.ts installs the listing)");
  return installed;
}
