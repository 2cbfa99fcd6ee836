import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandOutput } from "@aws-sdk/lib-dynamodb";
import type { Row } from "./field-map.ts";

/** What a migration pass's scan reads and tells: the client, the page size, and when to stop. */
export interface ScanContext {
  options: { client: DynamoDBDocumentClient; shouldStop?: () => boolean };
  batch: number;
  /** Set when `shouldStop` stopped the scan. */
  stopped: boolean;
}

/**
 * Items a confirming pass (the second and later) evaluates per Scan call. Such a pass reads v3
 * rows only, and after a complete first pass almost none are left: with `Limit` at the page size
 * it would cost one call per `--batch` items evaluated, for nothing. The rows it does find are
 * still handed out `--batch` at a time, so memory stays bounded by this (the CLI's largest batch).
 */
export const CONFIRMING_SCAN_LIMIT = 1000;

/** The Scan `Limit` of a pass: the page size for the first, which moves nearly every row it reads. */
export function evaluatedPerCall(context: ScanContext, pass: number): number {
  return pass > 1 ? Math.max(context.batch, CONFIRMING_SCAN_LIMIT) : context.batch;
}

/**
 * The table's pages of at most `--batch` rows, the next Scan call sent while the caller works on
 * the current page (the scan and the writes overlap). `shouldStop` is asked before each page is
 * handed out. `evaluate` is the Scan's `Limit` (items evaluated per call, filtered out or not).
 */
export async function* pages(
  context: ScanContext,
  table: string,
  filter?: { expression: string; names: Record<string, string>; values?: Record<string, unknown> },
  evaluate = context.batch,
): AsyncGenerator<Row[]> {
  const read = (start: Record<string, unknown> | undefined): Promise<ScanCommandOutput> => {
    // Marked handled at once: if the caller stops (an error, the deadline) before awaiting this
    // read-ahead, its failure must not surface as an unhandled rejection.
    const page = send(start);
    page.catch(() => undefined);
    return page;
  };
  const send = (start: Record<string, unknown> | undefined): Promise<ScanCommandOutput> =>
    context.options.client.send(
      new ScanCommand({
        TableName: table,
        Limit: evaluate,
        ConsistentRead: true,
        ...(filter
          ? {
              FilterExpression: filter.expression,
              ExpressionAttributeNames: filter.names,
              ...(filter.values ? { ExpressionAttributeValues: filter.values } : {}),
            }
          : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
  let pending: Promise<ScanCommandOutput> | undefined = read(undefined);
  while (pending) {
    const result: ScanCommandOutput = await pending;
    pending = result.LastEvaluatedKey ? read(result.LastEvaluatedKey) : undefined;
    const items = (result.Items ?? []) as Row[];
    // A call whose items were all filtered out still yields an empty page: the deadline is asked
    // after every call, and before every page of rows.
    for (let i = 0; i === 0 || i < items.length; i += context.batch) {
      if (context.options.shouldStop?.()) {
        context.stopped = true;
        await pending?.catch(() => undefined);
        return;
      }
      yield items.slice(i, i + context.batch);
    }
  }
}
