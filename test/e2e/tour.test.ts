import type { ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app/index.ts";
import { seed } from "../../app/seed/data.ts";
import { Context } from "../../lib/core/context.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { seedStore } from "../../lib/local/seed-store.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { codeBlocks, fileNameOf, prose, readmeSection, type Block } from "../support/readme.ts";
import { bash, runBlock } from "../support/shell.ts";

/**
 * README.md's "Quick tour", run verbatim against a plain `npm start` (seeded, no test-user hook):
 * every `sh` block is matched by exactly one step below, in order, and its output checked; `js`
 * blocks are saved under their name first; every URL the prose tells the reader to open answers.
 * A new block in the tour needs a new step here (the first test says which), so the two grow
 * together: the logged-in part of the tour is appended the same way.
 */

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
// Inside the project, so that `node watch.mjs` resolves graphql-ws and ws from its node_modules.
const TOUR_DIR = join(PROJECT_DIR, ".data", `tour-${process.pid}`);
const COMMAND_TIMEOUT_MS = 30_000;
const DELIVERY_MS = 20_000;
const [ALICE] = seed.users;

interface Step {
  /** What the reader does; matched against the block's text. */
  name: string;
  match: RegExp;
  check: (block: Block) => Promise<void>;
}

const section = readmeSection("Quick tour");
const blocks = codeBlocks(section);
const commands = blocks.filter((b) => b.lang === "sh");
let offline: Offline | undefined;
/** What npm start printed up to its banner (later request logs push it out of offline.output()). */
let startOutput = "";
const background: ChildProcess[] = [];

/** Runs a block that must succeed; its stdout, line by line when it holds several commands. */
async function succeed(block: Block): Promise<string> {
  const out = await runBlock(block.code, TOUR_DIR, COMMAND_TIMEOUT_MS);
  expect(out.code, `${block.code}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`).toBe(0);
  return out.stdout;
}

function jsonLines(stdout: string): unknown[] {
  // curl -s prints no newline after a body: split between adjacent JSON values.
  return stdout.replace(/}\s*{/g, "}\n{").replace(/}\s*"/g, '}\n"').split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
}

/** A published post written as Alice through the domain, straight into npm start's DynamoDB. */
async function publishAsAlice(slug: string): Promise<void> {
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(startOutput)?.[1];
  if (!endpoint || !ALICE) throw new Error(`npm start did not say where DynamoDB Local is:\n${startOutput}`);
  const { store, close } = seedStore(endpoint, "blog-local-", { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const app = createApp().useStore(store);
    const Post = app.model("Post");
    if (!Post) throw new Error("no Post model");
    await app.domain.create(new Context({ userId: ALICE.uuid }), Post, { slug, title: "Hello from the tour test", content: "Arrives over the WebSocket.", status: "published" });
  } finally {
    close();
  }
}

const steps: Step[] = [
  {
    name: "lists published posts over REST with a query-language filter",
    match: /^curl -s -X PUT http:\/\/127\.0\.0\.1:3000\/posts /,
    check: async (block) => {
      const body = JSON.parse(await succeed(block)) as { results: { slug: string; status: string; viewCount: number }[]; continuationToken: unknown };
      expect(body.results.map((p) => p.slug)).toEqual(["graphql-from-json-schema", "single-table-or-not", "hello-serverless"]);
      expect(body.results.every((p) => p.status === "published" && p.viewCount >= 5)).toBe(true);
      expect(body.continuationToken).toBeNull();
    },
  },
  {
    name: "reads one post by key and calls a public service operation",
    match: /^curl -s http:\/\/127\.0\.0\.1:3000\/posts\/hello-serverless\n/,
    check: async (block) => {
      const [post, published] = jsonLines(await succeed(block));
      expect(post).toMatchObject({ slug: "hello-serverless", status: "published", author: ALICE?.uuid });
      expect(published).toBe("Published: Hello from the tour");
    },
  },
  {
    name: "lists posts over GraphQL with authors and tags",
    match: /"query": "\{ Posts\(/,
    check: async (block) => {
      const body = JSON.parse(await succeed(block)) as { data: { Posts: { results: { slug: string; author: { username: string }; tags: { name: string }[] }[] } }; errors?: unknown };
      expect(body.errors).toBeUndefined();
      const posts = body.data.Posts.results;
      expect(posts).toHaveLength(3);
      expect(posts.map((p) => p.slug)).toEqual(["first-post", "graphql-from-json-schema", "single-table-or-not"]);
      expect(posts[1]).toMatchObject({ author: { username: "bob" }, tags: expect.arrayContaining([{ name: "GraphQL" }, { name: "TypeScript" }]) });
    },
  },
  {
    name: "reads one post over GraphQL with its comments",
    match: /"query": "query \(\$slug: String!\) \{ Post\(/,
    check: async (block) => {
      const body = JSON.parse(await succeed(block)) as { data: { Post: { title: string; author: { name: string }; comments: { results: { content: string; author: { username: string } }[] } } } };
      expect(body.data.Post).toMatchObject({ title: "Hello, serverless", author: { name: "Alice Martin" } });
      expect(body.data.Post.comments.results.map((c) => c.author.username).sort()).toEqual(["bob", "carol"]);
    },
  },
  {
    name: "watches a create arrive over graphql-ws",
    match: /^node watch\.mjs\n$/,
    check: async (block) => {
      const child = bash(block.code, TOUR_DIR);
      background.push(child);
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      await expect.poll(() => stdout, { timeout: DELIVERY_MS, message: `watch.mjs did not connect: ${stderr}` }).toContain("connected: watching");
      // The subscribe message follows the ack; a post written before the server stored the
      // subscription is missed, so write until one arrives (the first, in practice).
      const slug = `tour-${Date.now().toString(36)}`;
      const deadline = Date.now() + DELIVERY_MS;
      for (let n = 1; !stdout.includes(`CREATED ${slug}-`); n++) {
        if (Date.now() > deadline) throw new Error(`no delivery within ${DELIVERY_MS} ms:\n${stdout}\n${stderr}`);
        await publishAsAlice(`${slug}-${n}`);
        await expect.poll(() => stdout, { timeout: 5_000 }).toContain(`CREATED ${slug}-`).catch(() => undefined);
      }
      expect(stdout).toMatch(new RegExp(`CREATED ${slug}-\\d+ by alice`));
      expect(stderr).toBe("");
    },
  },
];

beforeAll(async () => {
  mkdirSync(TOUR_DIR, { recursive: true });
  for (const block of blocks.filter((b) => b.lang === "js")) writeFileSync(join(TOUR_DIR, fileNameOf(block)), block.code);
  offline = await startOffline({ args: [], testUser: false });
  // The banner follows the first HTTP answer by a poll interval.
  const until = Date.now() + 20_000;
  while (!offline.output().includes("Mail outbox") && Date.now() < until) await sleep(200);
  startOutput = offline.output();
}, 400_000);

afterAll(async () => {
  for (const child of background) if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  await offline?.stop();
  rmSync(TOUR_DIR, { recursive: true, force: true });
}, 60_000);

describe("README quick tour, verbatim against npm start", () => {
  it("has exactly one step per command block, in the README's order", () => {
    const matched = commands.map((block) => steps.filter((s) => s.match.test(block.code)).map((s) => s.name));
    expect(matched, "each sh block of the tour needs exactly one step in test/e2e/tour.test.ts").toEqual(steps.map((s) => [s.name]));
  });

  it("printed the ready banner with the URLs and demo users the README lists", () => {
    const output = startOutput;
    expect(output).toMatch(/seed: \d+ records created/);
    for (const url of ["http://127.0.0.1:3000/graphiql", "http://127.0.0.1:3000/graphql", "ws://127.0.0.1:3001"]) {
      expect(output).toContain(url);
      expect(section).toContain(url);
    }
    for (const user of seed.users) {
      expect(output).toContain(`${user.email} / ${user.password}`);
      expect(section).toMatch(new RegExp(`\\| \`${user.email}\` +\\| \`${user.password}\` +\\|`));
    }
    expect(output).toContain(".data/outbox/");
  });

  for (const [index, step] of steps.entries()) {
    it(step.name, { timeout: 90_000 }, async () => {
      const block = commands.find((b) => step.match.test(b.code));
      if (!block) throw new Error(`the README's tour has no block for step ${index + 1} (${step.name})`);
      await step.check(block);
    });
  }

  it("opens every local URL its prose names", async () => {
    const urls = [...new Set([...prose(section).matchAll(/http:\/\/127\.0\.0\.1:3000\/[\w/-]*/g)].map((m) => m[0]))];
    expect(urls).toContain("http://127.0.0.1:3000/graphiql");
    for (const url of urls) {
      const response = await fetch(url, { headers: { accept: "text/html" } });
      expect(response.status, url).toBe(200);
    }
  });

  it("serves GraphiQL's assets compressed and immutable through serverless offline", async () => {
    const page = await (await fetch("http://127.0.0.1:3000/graphiql")).text();
    const script = /src="(graphiql\/graphiql\.[\w-]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    // fetch decompresses; the headers still say what travelled.
    const response = await fetch(`http://127.0.0.1:3000/${script}`, { headers: { "accept-encoding": "br, gzip" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-encoding")).toBe("br");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await response.text()).length).toBeGreaterThan(3_000_000);
  });
});
