import { NumberValue, QueryCommand, ScanCommand, type QueryCommandOutput, type ScanCommandInput, type ScanCommandOutput } from "@aws-sdk/lib-dynamodb";
import { evaluate, planDynamoQuery, type Expression } from "../query/index.ts";
import { listEach, type BatchSource } from "./dynamodb-batch-reads.ts";
import { AHEAD, KEPT, LEGACY_SIZE, SEEN } from "./dynamodb-cursor.ts";
import { findByFieldPages } from "./dynamodb-pages.ts";
import { DynamoRecords } from "./dynamodb-records.ts";
import { cursorOf, keyFieldsOf, pickKey } from "./keys.ts";
import { addSelectivity, carriedSelectivity, readSize, selectivityEntries } from "./read-size.ts";
import {
  acceptedRows,
  PageFill,
  type Cursor,
  type Item,
  type Key,
  type KeyValue,
  type ListEachRequest,
  type ListRequest,
  type Page,
  type PageSizes,
} from "./repository.ts";

/**
 * The document client refuses a JS number beyond ±2^53 (it could not read one back exactly), yet a
 * query may well compare with one. Its shortest decimal form reads back as the same double, and
 * DynamoDB takes it as given.
 */
function sendableValues(values: Record<string, unknown>): Record<string, unknown> {
  const sendable = (value: unknown): unknown =>
    typeof value === "number" && Math.abs(value) > Number.MAX_SAFE_INTEGER ? NumberValue.from(String(value)) : value;
  return Object.fromEntries(Object.entries(values).map(([id, value]) => [id, sendable(value)]));
}

/** A DynamoDB table read by key and listed: filtered, ordered and paged by the query planner's plan. */
export class DynamoRepository extends DynamoRecords {
  /** findByField page by page, the first page small (dynamodb-pages.ts). */
  findByFieldPages(field: string, values: KeyValue[], sizes: PageSizes): AsyncIterable<Item[]> {
    return findByFieldPages(this.keySource(), field, values, sizes);
  }

  /** Many scopes' pages read together where their listings are Queries on one key (dynamodb-batch-reads.ts). */
  listEach(request: ListEachRequest): Promise<Page[]> {
    const source: BatchSource = { ...this.keySource(), list: (scoped) => this.list(scoped) };
    return listEach(source, request);
  }

  /**
   * Reads until the page holds `limit` accepted records plus one look-ahead (so that `next` is set
   * exactly when more exist). Each call's read size is what the page still needs over the share of
   * records the filter and the read permission have kept so far (read-size.ts), measured from the
   * first page on and carried in the cursor: a dense filter reads about what it returns, a sparse
   * one reads up to DynamoDB's page at once.
   * The look-ahead's key rides in the cursor: the next page starts by re-reading that one record
   * and resumes after it, instead of scanning again the stretch the look-ahead already crossed.
   * The read budget (`maxRead`) caps what DynamoDB evaluates (its `Limit` counts items read before
   * the filter): when it ends first, the page is short and the cursor is DynamoDB's own resume key.
   */
  override async list(request: ListRequest): Promise<Page> {
    const where = request.where as Expression | undefined;
    const plan = planDynamoQuery({ ...(where ? { where } : {}), orderBy: request.orderBy ?? [] }, this.table);
    const index = plan.kind === "query" && plan.indexName ? this.table.indexes.find((i) => i.name === plan.indexName) : undefined;
    const cursorFields = [...new Set([...keyFieldsOf(this.table), ...(index ? [index.hash, ...(index.range ? [index.range] : [])] : [])])];
    const matches = (row: Item, fromFilter: boolean): boolean => (fromFilter ? !plan.residual || evaluate(plan.residual, row) : !where || evaluate(where, row));
    const page = new PageFill(request);
    // undefined: from the start; null: the data has ended.
    const { [AHEAD]: aheadKey, [KEPT]: _kept, [SEEN]: _seen, [LEGACY_SIZE]: _size, ...resumeKey } = request.after ?? {};
    let startKey: Record<string, unknown> | undefined | null = request.after ? resumeKey : undefined;
    const ahead = typeof aheadKey === "string" ? (JSON.parse(aheadKey) as Key) : undefined;
    let budget = Math.max(1, request.maxRead ?? Number.POSITIVE_INFINITY);
    // What this page evaluated: the look-ahead's record, then every call's ScannedCount.
    let scanned = 0;
    if (ahead) {
      budget--;
      scanned++;
      const row = await this.get(pickKey(this.table, ahead));
      for (const accepted of await acceptedRows(request, row && matches(row, false) ? [row] : [])) page.add(accepted);
      startKey = ahead;
    }
    const filtered = plan.filterExpression !== undefined || plan.residual !== undefined;
    let measured = carriedSelectivity(request.after);
    let next: Item | undefined;
    const hasValues = Object.keys(plan.values).length > 0;
    const hasNames = Object.keys(plan.names).length > 0;
    while (!next && startKey !== null && budget > 0) {
      const common: ScanCommandInput = {
        TableName: this.tableName,
        // The page needs its remaining records plus the look-ahead.
        Limit: readSize(request.limit + 1 - page.items.length, measured, filtered, budget),
        ExclusiveStartKey: startKey ?? undefined,
        ...(plan.filterExpression ? { FilterExpression: plan.filterExpression } : {}),
        ...(hasNames ? { ExpressionAttributeNames: plan.names } : {}),
        ...(hasValues ? { ExpressionAttributeValues: sendableValues(plan.values) } : {}),
      };
      const result: QueryCommandOutput | ScanCommandOutput = await this.run(() =>
        plan.kind === "query"
          ? this.client.send(
              new QueryCommand({
                ...common,
                ...(plan.indexName ? { IndexName: plan.indexName } : {}),
                KeyConditionExpression: plan.keyCondition,
                ScanIndexForward: plan.scanForward,
              }),
            )
          : this.client.send(new ScanCommand(common)),
      );
      const kept = await acceptedRows(
        request,
        (result.Items ?? []).filter((row) => matches(row, true)),
      );
      const seen = result.ScannedCount ?? result.Items?.length ?? 0;
      measured = addSelectivity(measured, { kept: kept.length, seen });
      for (const row of kept) {
        if (!page.add(row)) {
          next = row;
          break;
        }
      }
      startKey = result.LastEvaluatedKey ?? null;
      budget -= seen;
      scanned += seen;
    }
    const { items } = page;
    const estimate = selectivityEntries(measured);
    if (!next && startKey) return { items, next: { ...(startKey as Cursor), ...estimate }, scanned };
    const last = items[items.length - 1];
    if (!next) return { items, scanned };
    // An empty page (the response's byte budget could not hold its first record) resumes at that
    // record: its key rides as the look-ahead, which the next page reads first.
    return { items, next: { ...(last ? cursorOf(last, cursorFields) : {}), [AHEAD]: JSON.stringify(cursorOf(next, cursorFields)), ...estimate }, scanned };
  }
}
