import type { Context } from "./context.ts";
import { BadQueryError } from "./errors.ts";
import type { ModelInfo } from "./model-info.ts";

/**
 * A filter or an order may name only fields the caller may read in every record: naming one it may
 * not is refused, the same whether or not any record would match, so that the result count never
 * tells what a hidden field holds. A dotted path is judged by its first segment.
 */
export function assertFilterable(ctx: Context, info: ModelInfo, fields: Iterable<string>): void {
  const readers = info.cls.fieldReaders;
  const refused = [...new Set([...fields].map((f) => f.split(".")[0] as string))].filter((f) => {
    const reader = readers[f];
    return reader !== undefined && !reader(ctx);
  });
  if (refused.length === 0) return;
  const messages = refused.map((f) => `the field '${f}' is not readable by you and cannot be used in a filter or an order`);
  throw new BadQueryError(
    messages[0] as string,
    messages.map((message) => ({ path: "/q", message })),
  );
}
