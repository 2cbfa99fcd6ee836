import { PageFill, type Item, type ListRequest } from "./repository.ts";

/** A page before its cursor is made: `next` is the first accepted record left out. */
export interface FilledPage {
  items: Item[];
  next?: Item;
}

/** How many records of a group the first permission check covers at most, then twice as many each time. */
const MAX_STRETCH = 1000;

/**
 * One page per group of candidate records (each already in its listing's order and filtered), as
 * `list` fills one: accepted records until the limit or the byte budget, and `next` exactly when
 * another accepted record follows. `accept` is asked about the next stretch of every unfinished
 * group in one call, so the permission checks of all groups read their parents together.
 */
export async function fillPages(groups: Item[][], request: Omit<ListRequest, "where" | "after">): Promise<FilledPage[]> {
  const fills = groups.map(() => new PageFill(request));
  const nexts: (Item | undefined)[] = groups.map(() => undefined);
  const positions = groups.map(() => 0);
  const done = groups.map((rows) => rows.length === 0);
  let stretch = request.limit + 1;
  while (done.includes(false)) {
    const asked: { group: number; rows: Item[] }[] = [];
    groups.forEach((rows, group) => {
      if (done[group]) return;
      const start = positions[group] as number;
      asked.push({ group, rows: rows.slice(start, start + stretch) });
      positions[group] = start + stretch;
    });
    const candidates = asked.flatMap((a) => a.rows);
    const verdicts = request.accept ? await request.accept(candidates) : candidates.map(() => true);
    let i = 0;
    for (const { group, rows } of asked) {
      const fill = fills[group] as PageFill;
      for (const row of rows) {
        if (verdicts[i++] !== true || done[group]) continue;
        if (!fill.add(row)) {
          nexts[group] = row;
          done[group] = true;
        }
      }
      if ((positions[group] as number) >= (groups[group] as Item[]).length) done[group] = true;
    }
    stretch = Math.min(MAX_STRETCH, stretch * 2);
  }
  return fills.map((fill, group) => {
    const next = nexts[group];
    return next ? { items: fill.items, next } : { items: fill.items };
  });
}
