import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { CacheFiles } from "../../cli/cache.ts";

/** What the rebuild child (check.ts) reports: the new version's schema-cache/ and tables, or why there is none. */
export type CheckResult = { ok: true; files: CacheFiles; tables: CreateTableCommandInput[] } | { ok: false; error: string };
