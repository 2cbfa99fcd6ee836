import type { ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcess } from "../support/parts.ts";
import { createApp } from "../../app/index.ts";
import { seed } from "../../app/seed/data.ts";
import { Context } from "../../lib/core/context.ts";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../lib/local/local-aws.ts";
import { seedStore } from "../../lib/local/seed-store.ts";
import { startOffline, type Offline } from "../support/offline.ts";
import { signInAtProvider } from "../auth/idp-support.ts";
import { CookieJar, locationOf } from "../support/cookie-jar.ts";
import { codeBlocks, fileNameOf, prose, readmeSection, type Block } from "../support/readme.ts";
import { bash, ShellSession } from "../support/shell.ts";

/**
 * README.md's "Quick tour", run verbatim against a plain `npm start` (seeded, no test-user hook,
 * no secret from the test run): every `sh` block is matched by exactly one step below, in order,
 * and its output checked; `js` blocks are saved under their name first; every URL the prose tells
 * the reader to open answers, and the browser sign-in it describes is followed with a cookie jar.
 * The blocks run in one shell session, as a reader's terminal runs them (`$TOKEN` set by the login
 * is there for the writes), except `node watch.mjs`, which the tour runs in a second terminal.
 * A new block in the tour needs a new step here (the first test says which), so the two grow
 * together.
 */

const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
// Inside the project, so that `node watch.mjs` resolves graphql-ws and ws from its node_modules.
const TOUR_DIR = join(PROJECT_DIR, ".data", `tour-${process.pid}`);
const COMMAND_TIMEOUT_MS = 30_000;
const DELIVERY_MS = 20_000;
const [ALICE] = seed.users;
const DEFAULT_DYNAMODB = "http://127.0.0.1:8000";

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
/** The reader's first terminal. */
let shell: ShellSession | undefined;
/** What `node watch.mjs` printed in the second terminal. */
const watched = { stdout: "", stderr: "" };

/**
 * A reader's environment: none of the test run's own settings (its DynamoDB, table prefix and
 * secrets); `DYNAMODB_ENDPOINT` only if npm start's DynamoDB Local moved off 8000, as the README
 * tells readers to set it then.
 */
function readerEnv(dynamodb?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("VITEST")) delete env[name];
  for (const name of ["DYNAMODB_ENDPOINT", "TABLE_PREFIX", "APP_SECRET", "AUTH_SIGNING_KEY", "ALLOW_TEST_USER"]) delete env[name];
  if (dynamodb !== undefined && dynamodb !== DEFAULT_DYNAMODB) env.DYNAMODB_ENDPOINT = dynamodb;
  return env;
}

/** Runs a block in the reader's shell; it must succeed. Its stdout. */
async function succeed(block: Block): Promise<string> {
  if (!shell) throw new Error("no shell session");
  const out = await shell.run(block.code, COMMAND_TIMEOUT_MS);
  expect(out.code, `${block.code}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`).toBe(0);
  return out.stdout;
}

/** The block the README shows after `block` as its output. */
function shownOutput(block: Block): string {
  const next = blocks[blocks.indexOf(block) + 1];
  if (!next || next.lang === "sh") throw new Error(`the README shows no output after:\n${block.code}`);
  return next.code;
}

/** Waits for watch.mjs to print `line`. */
async function watchPrints(line: string): Promise<void> {
  await expect
    .poll(() => watched.stdout.split("\n"), { timeout: DELIVERY_MS, message: `watch.mjs did not print "${line}":\n${watched.stdout}\n${watched.stderr}` })
    .toContain(line);
}

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
}

function jsonLines(stdout: string): unknown[] {
  // curl -s prints no newline after a body: split between adjacent JSON values.
  return stdout
    .replace(/}\s*{/g, "}\n{")
    .replace(/}\s*"/g, '}\n"')
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}

/** Where npm start's DynamoDB Local listens, as it said. */
function dynamodbEndpoint(): string {
  const endpoint = /DynamoDB Local on (http:\/\/\S+)/.exec(startOutput)?.[1];
  if (!endpoint) throw new Error(`npm start did not say where DynamoDB Local is:\n${startOutput}`);
  return endpoint;
}

/** A published post written as Alice through the domain, straight into npm start's DynamoDB. */
async function publishAsAlice(slug: string): Promise<void> {
  const endpoint = dynamodbEndpoint();
  if (!ALICE) throw new Error("no demo user");
  const { store, close } = seedStore(endpoint, "blog-local-", { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const app = createApp(inProcess).useStore(store);
    const Post = app.model("Post");
    if (!Post) throw new Error("no Post model");
    await app.domain.create(new Context({ userId: ALICE.uuid }), Post, {
      slug,
      title: "Hello from the tour test",
      content: "Arrives over the WebSocket.",
      status: "published",
    });
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
      const body = JSON.parse(await succeed(block)) as {
        data: { Posts: { results: { slug: string; author: { username: string }; tags: { name: string }[] }[] } };
        errors?: unknown;
      };
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
      const body = JSON.parse(await succeed(block)) as {
        data: { Post: { title: string; author: { name: string }; comments: { results: { content: string; author: { username: string } }[] } } };
      };
      expect(body.data.Post).toMatchObject({ title: "Hello, serverless", author: { name: "Alice Martin" } });
      expect(body.data.Post.comments.results.map((c) => c.author.username).sort()).toEqual(["bob", "carol"]);
    },
  },
  {
    name: "watches published posts over graphql-ws in a second terminal",
    match: /^node watch\.mjs\n$/,
    check: async (block) => {
      const child = bash(block.code, TOUR_DIR, readerEnv(dynamodbEndpoint()));
      background.push(child);
      child.stdout?.on("data", (c: Buffer) => (watched.stdout += c.toString("utf8")));
      child.stderr?.on("data", (c: Buffer) => (watched.stderr += c.toString("utf8")));
      await expect
        .poll(() => watched.stdout, { timeout: DELIVERY_MS, message: `watch.mjs did not connect: ${watched.stderr}` })
        .toContain("connected: watching");
      // The subscribe message follows the ack, and a post written before the server stored the
      // subscription is missed: the tour's writes come next, so first make sure one arrives
      // (the first probe, in practice).
      const slug = `probe-${Date.now().toString(36)}`;
      const deadline = Date.now() + DELIVERY_MS;
      for (let n = 1; !watched.stdout.includes(`CREATED ${slug}-`); n++) {
        if (Date.now() > deadline) throw new Error(`no delivery within ${DELIVERY_MS} ms:\n${watched.stdout}\n${watched.stderr}`);
        await publishAsAlice(`${slug}-${n}`);
        await expect
          .poll(() => watched.stdout, { timeout: 5_000 })
          .toContain(`CREATED ${slug}-`)
          .catch(() => undefined);
      }
      expect(watched.stdout).toMatch(new RegExp(`CREATED ${slug}-\\d+ by alice`));
    },
  },
  {
    name: "logs in as a demo user and keeps the access token in $TOKEN",
    match: /^TOKEN=\$\(curl -s -X POST http:\/\/127\.0\.0\.1:3000\/auth\/email\/login /,
    check: async (block) => {
      const me = JSON.parse(await succeed(block)) as Record<string, unknown>;
      expect(me).toMatchObject({ uuid: ALICE?.uuid, username: "alice", email: ALICE?.email });
      // The variable outlives its block: the next blocks use it.
      const token = (await shell?.run('printf %s "$TOKEN"', COMMAND_TIMEOUT_MS))?.stdout ?? "";
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(claimsOf(token)).toMatchObject({ sub: ALICE?.uuid });
      expect(shownOutput(block)).toContain(`"uuid":"${ALICE?.uuid ?? ""}","username":"alice"`);
    },
  },
  {
    name: "creates a post with the token over REST, and watch.mjs sees it arrive",
    match: /^curl -s -X POST http:\/\/127\.0\.0\.1:3000\/posts -H "Authorization: Bearer \$TOKEN"/,
    check: async (block) => {
      const post = JSON.parse(await succeed(block)) as Record<string, unknown>;
      expect(post).toMatchObject({ slug: "hello-tour", status: "published", author: ALICE?.uuid, createdAt: expect.any(String) });
      await watchPrints("CREATED hello-tour by alice");
    },
  },
  {
    name: "patches it with the token",
    match: /^curl -s -X PATCH http:\/\/127\.0\.0\.1:3000\/posts\/hello-tour /,
    check: async (block) => {
      const post = JSON.parse(await succeed(block)) as Record<string, unknown>;
      expect(post).toMatchObject({ slug: "hello-tour", title: "Hello again from the tour", author: ALICE?.uuid });
      await watchPrints("UPDATED hello-tour by alice");
    },
  },
  {
    name: "refuses the anonymous delete, deletes with the token",
    match: /^curl -s -w '\\n' -X DELETE http:\/\/127\.0\.0\.1:3000\/posts\/hello-tour\n/,
    check: async (block) => {
      const out = await succeed(block);
      expect(out).toBe(`${shownOutput(block).trimEnd()}\n`);
      expect(out).toBe('{"code":401,"message":"sign in first"}\n204\n');
      expect((await fetch("http://127.0.0.1:3000/posts/hello-tour")).status).toBe(404);
      await watchPrints("DELETED hello-tour by alice");
      // What the README shows of watch.mjs is what it printed, in that order (probes aside).
      const shown = blocks[blocks.indexOf(block) + 2]?.code.trimEnd().split("\n") ?? [];
      expect(shown[0]).toMatch(/^connected: watching/);
      expect(watched.stdout.split("\n").filter((l) => shown.includes(l))).toEqual(shown);
    },
  },
  {
    name: "creates a post and reads me over GraphQL with the token",
    match: /^curl -s http:\/\/127\.0\.0\.1:3000\/graphql -H "Authorization: Bearer \$TOKEN"/,
    check: async (block) => {
      const [created, me] = jsonLines(await succeed(block));
      expect(created).toEqual({ data: { createPost: { slug: "hello-graphql", status: "published", author: { username: "alice" } } } });
      expect(me).toEqual({ data: { me: { username: "alice", name: ALICE?.name, email: ALICE?.email } } });
      expect(jsonLines(shownOutput(block))).toEqual([created, me]);
      await watchPrints("CREATED hello-graphql by alice");
      expect(watched.stderr).toBe("");
    },
  },
  {
    name: "looks for v3 authentication data to migrate, writing nothing",
    match: /^npx webda auth migrate --local --dryRun\n$/,
    check: async (block) => {
      const out = await succeed(block);
      // Everything but the duration, as the README shows it.
      const timeless = (text: string) => text.replace(/\d+\.\d s;/, "N s;").trimEnd();
      expect(timeless(out)).toBe(timeless(shownOutput(block)));
      expect(out).toContain("idents  would migrate 0, skipped 0, failed 0");
    },
  },
];

beforeAll(async () => {
  mkdirSync(TOUR_DIR, { recursive: true });
  for (const block of blocks.filter((b) => b.lang === "js")) writeFileSync(join(TOUR_DIR, fileNameOf(block)), block.code);
  // A plain npm start: it makes and keeps its own secrets under .data/, as on a reader's machine.
  offline = await startOffline({ args: [], testUser: false, env: { APP_SECRET: undefined, AUTH_SIGNING_KEY: undefined } });
  // The banner follows the first HTTP answer by a poll interval.
  const until = Date.now() + 20_000;
  while (!offline.output().includes("Mail outbox") && Date.now() < until) await sleep(200);
  startOutput = offline.output();
  shell = new ShellSession(TOUR_DIR, readerEnv(dynamodbEndpoint()));
}, 400_000);

afterAll(async () => {
  for (const child of background) if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  shell?.close();
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

  it("signs in through the local OpenID provider as the prose describes, into Alice's account", async () => {
    const idp = prose(section).slice(prose(section).indexOf("**Sign in through the local OpenID provider**"));
    const start = /open\s+(http:\/\/127\.0\.0\.1:3000\/auth\/idp)\b/.exec(idp)?.[1];
    const provider = /runs on\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(idp)?.[1];
    const landing = /back to\s+(http:\/\/127\.0\.0\.1:3000\/[\w/]+)/.exec(idp)?.[1];
    const [user, password] = [/as `(\w+)`/.exec(idp)?.[1], /password `(\w+)`/.exec(idp)?.[1]];
    expect([start, provider, landing, user, password].every(Boolean), idp).toBe(true);
    const jar = new CookieJar();
    const authorization = locationOf(await jar.fetch(start ?? ""), start ?? "");
    expect(authorization.startsWith(`${provider ?? ""}/`)).toBe(true);
    // The page the reader sees: the form and the table of users.
    const page = await jar.fetch(locationOf(await jar.fetch(authorization), authorization));
    expect(await page.text()).toMatch(/<title>Local OpenID provider[\s\S]*<form[\s\S]*<td><code>alice<\/code><\/td>/);
    const callback = await signInAtProvider(jar, authorization, user ?? "", password);
    const back = await jar.fetch(callback);
    expect(locationOf(back, callback)).toBe(landing);
    const me = await jar.fetch(landing ?? "");
    // The same account as the email login: linked through the verified email.
    expect(await me.json()).toMatchObject({ uuid: ALICE?.uuid, username: "alice" });
    expect(jar.get("127.0.0.1:3000", "session")).toBeDefined();
  });

  it("opens every local URL its prose names, as a browser does (cookies kept across redirects)", async () => {
    const urls = [...new Set([...prose(section).matchAll(/http:\/\/127\.0\.0\.1:3000\/[\w/-]*/g)].map((m) => m[0]))];
    expect(urls).toEqual(expect.arrayContaining(["http://127.0.0.1:3000/graphiql", "http://127.0.0.1:3000/auth/idp"]));
    for (const url of urls) {
      const jar = new CookieJar();
      let at = url;
      let response = await jar.fetch(at, { headers: { accept: "text/html" } });
      for (let hop = 0; hop < 10 && response.status >= 300 && response.status < 400; hop++) {
        at = locationOf(response, at);
        response = await jar.fetch(at, { headers: { accept: "text/html" } });
      }
      expect(response.status, `${url} (landed on ${at})`).toBe(200);
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
