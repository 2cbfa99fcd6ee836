import { DEFAULT_READ_BUDGET } from "../../lib/core/list.ts";
import { httpEvent, lambdaContext } from "../../test/support/http-events.ts";
import type { recordCalls } from "../dynamo/recorder.ts";
import { barOn, type Figures, type Measured } from "../lib/figures.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { viewCountOf } from "./load.ts";

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;

/** The two densities of the issue: half the table, and one row in a hundred. */
const FILTERS = [
  { name: "50% filter", below: 500 },
  { name: "1% filter", below: 10 },
] as const;

/** Items read per row a filter could not beat: rows in the table per row it matches. */
function floorOf(size: number, below: number): number {
  let matching = 0;
  for (let i = 0; i < size; i++) if (viewCountOf(i) < below) matching++;
  return size / Math.max(1, matching);
}

interface Followed {
  pages: number;
  rows: number;
  items: number;
  capacity: number;
  mostItems: number;
  emptyWithToken: number;
  failed?: string;
}

/** Follows `body`'s pages with their continuation tokens, as a client does, for at most `maxPages`. */
async function follow(rest: Handler, recorder: ReturnType<typeof recordCalls>, body: Record<string, unknown>, maxPages: number): Promise<Followed> {
  const followed: Followed = { pages: 0, rows: 0, items: 0, capacity: 0, mostItems: 0, emptyWithToken: 0 };
  let token: string | undefined;
  do {
    recorder.reset();
    const answer = await rest(
      httpEvent("PUT", "/posts", { routeKey: "PUT /posts", body: { ...body, ...(token ? { continuationToken: token } : {}) } }),
      lambdaContext(),
    );
    if (answer.statusCode !== 200) return { ...followed, failed: `status ${answer.statusCode}, expected 200` };
    const page = JSON.parse(answer.body ?? "{}") as { results?: unknown[]; continuationToken?: string | null };
    const items = recorder.calls.reduce((sum, c) => sum + c.items, 0);
    followed.pages++;
    followed.rows += page.results?.length ?? 0;
    followed.items += items;
    followed.capacity += recorder.calls.reduce((sum, c) => sum + c.capacity, 0);
    followed.mostItems = Math.max(followed.mostItems, items);
    token = page.continuationToken ?? undefined;
    if (token && (page.results?.length ?? 0) === 0) followed.emptyWithToken++;
  } while (token && followed.pages < maxPages);
  return followed;
}

/**
 * Read amplification on the largest table: a 50% and a 1% filter on `viewCount`, unordered (a
 * Scan) and ordered (`status = 'published' … ORDER BY createdAt DESC`, a Query on by_status with
 * the rest as a filter), at limit 10 and 100, each followed page by page. Bars: at most 3 items
 * read per row returned for the 50% filter; for the 1% filter, whose floor is about 100 items per
 * row (DynamoDB evaluates every row a filter rejects), at most 3x that floor. Every request keeps
 * within the read budget.
 */
export async function amplificationRows(
  figures: Figures,
  rest: Handler,
  recorder: ReturnType<typeof recordCalls>,
  size: number,
  maxPages: number,
  lines: string[],
): Promise<void> {
  for (const { name, below } of FILTERS) {
    const floor = floorOf(size, below);
    for (const ordered of [false, true]) {
      for (const limit of [10, 100]) {
        const q = ordered ? `status = 'published' AND viewCount < ${below} ORDER BY createdAt DESC` : `viewCount < ${below}`;
        const label = `${name}, ${ordered ? "ordered" : "unordered"}, limit ${limit}, ${size.toLocaleString("en")} posts`;
        progress(`scale: ${label}`);
        const f = await follow(rest, recorder, { q, limit }, maxPages);
        const perRow = f.items / Math.max(1, f.rows);
        const ours: Measured = { name: "ours", summary: summarise([perRow]) };
        const dense = below === 500;
        const overBudget = f.mostItems > DEFAULT_READ_BUDGET ? `a request read ${f.mostItems} items, past the read budget ${DEFAULT_READ_BUDGET}` : undefined;
        const failed = f.failed ?? overBudget;
        const note = `${f.pages} pages followed, ${f.rows} rows, ${f.items} items read, ${f.capacity.toFixed(1)} CU, at most ${f.mostItems} items in a request, ${f.emptyWithToken} empty pages with a token; floor ${floor.toFixed(1)} items per row`;
        figures.add({
          section: "scale",
          measure: `${label}: items read per row`,
          unit: "items",
          higherIsBetter: false,
          ours,
          bar: dense ? barOn("<= 3 items per row", ours, 1, 3, true) : barOn(`<= 3x the floor (${floor.toFixed(0)} items per row)`, ours, floor, 3, true),
          ...(failed ? { failed } : {}),
          note,
        });
        lines.push(`${label.padEnd(48)} ${perRow.toFixed(2)} items per row  ${note}`);
      }
    }
  }
}
