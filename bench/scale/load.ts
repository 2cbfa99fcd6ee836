import { BatchWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { progress } from "../lib/progress.ts";

/** Posts written per BatchWriteItem (DynamoDB's maximum) and BatchWrites kept in flight. */
const PER_BATCH = 25;
const IN_FLIGHT = 16;

/** The author of the few posts the selective query finds (three, whatever the table's size). */
export const RARE_AUTHOR = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0f99";
const AUTHORS = Array.from({ length: 50 }, (_, i) => `0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a${String(i).padStart(4, "0")}`);
// About 1.7 KB a post, as the 20,000 posts in 34 MB.
const CONTENT = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(28);

/**
 * Post `i`'s view count: spread evenly over 0..999 and unrelated to `i` (so to both the scan order
 * and the creation order), so that `viewCount < 500` keeps half of any stretch and `< 10` 1%.
 */
export function viewCountOf(i: number): number {
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % 1000;
}

/** Post `i` as the store keeps it (a row without an envelope reads as version 0). */
function postRow(i: number): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    slug: `scale-${String(i).padStart(6, "0")}`,
    title: `Post number ${i}`,
    content: CONTENT,
    status: "published",
    viewCount: viewCountOf(i),
    author: i < 3 ? RARE_AUTHOR : (AUTHORS[i % AUTHORS.length] as string),
    createdAt: at,
    updatedAt: at,
  };
}

/** Sends one BatchWrite, again with what DynamoDB left unprocessed until nothing is left. */
async function writeBatch(client: DynamoDBDocumentClient, table: string, rows: Record<string, unknown>[]): Promise<void> {
  let requests: { PutRequest: { Item: Record<string, unknown> } }[] | undefined = rows.map((Item) => ({ PutRequest: { Item } }));
  while (requests && requests.length > 0) {
    const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
    requests = result.UnprocessedItems?.[table] as typeof requests;
  }
}

/**
 * Grows the posts table from `from` to `to` posts: BatchWrites of 25, `IN_FLIGHT` at once, with
 * progress every 10,000 posts and a summary (posts, calls, posts per second) at the end.
 */
export async function writePosts(client: DynamoDBDocumentClient, table: string, from: number, to: number): Promise<void> {
  const started = performance.now();
  let next = from;
  let written = 0;
  let batches = 0;
  let reported = from;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < to) {
        const first = next;
        next = Math.min(to, next + PER_BATCH);
        const rows = Array.from({ length: next - first }, (_, k) => postRow(first + k));
        await writeBatch(client, table, rows);
        written += rows.length;
        batches++;
        if (from + written - reported >= 10_000) {
          reported = from + written;
          progress(`scale: ${reported.toLocaleString("en")} of ${to.toLocaleString("en")} posts written`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  progress(
    `scale: wrote ${written.toLocaleString("en")} posts (${from.toLocaleString("en")} -> ${to.toLocaleString("en")}) in ${batches} BatchWrites, ${seconds.toFixed(1)} s, ${(written / Math.max(seconds, 0.001)).toFixed(0)} posts/s`,
  );
}
