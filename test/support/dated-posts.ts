import { vi } from "vitest";
import type { Application } from "../../lib/core/application.ts";
import { ALICE, BOB, as, model, post } from "./blog.ts";

const START = Date.parse("2026-01-01T00:00:00.000Z");
export const POSTS = 30;

/** Post i's minute: 7 is prime to 30, so every post gets its own, unrelated to slug order. */
const minuteOf = (i: number): number => (i * 7) % POSTS;
export const slugOf = (i: number): string => `p${String(i).padStart(2, "0")}`;
export const statusOf = (i: number): string => (i % 3 === 0 ? "draft" : "published");

/**
 * Thirty posts p00..p29, owners alternating BOB/ALICE, every third a draft, viewCount i, each
 * created at its own minute (a faked clock) so an ORDER BY on createdAt has a single right answer.
 */
export async function seedPosts(app: Application, slug: (i: number) => string = slugOf) {
  const Post = model(app, "Post");
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    for (let i = 0; i < POSTS; i++) {
      vi.setSystemTime(START + minuteOf(i) * 60_000);
      await app.domain.create(as(i % 2 ? ALICE : BOB), Post, post(slug(i), statusOf(i), { viewCount: i }));
    }
  } finally {
    vi.useRealTimers();
  }
  return Post;
}

/** The seeded posts of one status by ascending createdAt: the oracle, computed without a store. */
export function createdOrder(status: string, slug: (i: number) => string = slugOf): string[] {
  return Array.from({ length: POSTS }, (_, i) => i)
    .filter((i) => statusOf(i) === status)
    .sort((a, b) => minuteOf(a) - minuteOf(b))
    .map(slug);
}
