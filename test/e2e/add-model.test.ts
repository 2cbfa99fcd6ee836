import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOffline, type Offline } from "../support/offline.ts";
import { ProjectCopy } from "../support/project-copy.ts";
import { codeBlocks, fileNameOf, readmeSection, type Block } from "../support/readme.ts";
import { runBlock } from "../support/shell.ts";

/**
 * README.md's "Add your own model", followed word for word in a copy of the project (its
 * node_modules linked, not copied): save the model file, run the section's commands, compare their
 * output with the output the README shows, then start the copy (one `npm start`) and run the
 * section's requests against it.
 */

const COMMAND_TIMEOUT_MS = 120_000;

const section = readmeSection("Add your own model");
const blocks = codeBlocks(section);
let project: ProjectCopy | undefined;
let copy = "";
let offline: Offline | undefined;

/** The block right after `block`, which shows its output. */
function outputOf(block: Block): Block {
  const next = blocks[blocks.indexOf(block) + 1];
  if (!next || next.lang === "sh" || next.lang === "ts") throw new Error(`the README shows no output after:\n${block.code}`);
  return next;
}

function commandBlock(match: RegExp): Block {
  const found = blocks.filter((b) => b.lang === "sh" && match.test(b.code));
  expect(found, `one sh block of "Add your own model" matching ${match}`).toHaveLength(1);
  return found[0] as Block;
}

async function succeed(block: Block): Promise<string> {
  const out = await runBlock(block.code, copy, COMMAND_TIMEOUT_MS);
  expect(out.code, `${block.code}\nstdout: ${out.stdout}\nstderr: ${out.stderr}`).toBe(0);
  return out.stdout;
}

beforeAll(() => {
  project = new ProjectCopy("add-model");
  copy = project.dir;
});

afterAll(async () => {
  await offline?.stop();
  project?.remove();
}, 60_000);

describe("README: add your own model, followed in a copy of the project", () => {
  it("has the blocks the test follows: a model file, the commands, the requests", () => {
    expect(blocks.map((b) => b.lang)).toEqual(["ts", "sh", "sh", "text", "sh", "json"]);
    expect(fileNameOf(blocks[0] as Block)).toBe("app/models/bookmark.ts");
  });

  it("saves the model and rebuilds what derives from it", { timeout: COMMAND_TIMEOUT_MS }, async () => {
    const model = blocks[0] as Block;
    const file = join(copy, fileNameOf(model));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, model.code);
    const out = await succeed(commandBlock(/npm run build/));
    expect(out).toMatch(/schema-cache\/: wrote .*routes\.json.*schema\.graphql/);
  });

  it("shows the routes, GraphQL type, queries, mutations and subscriptions the README shows", { timeout: COMMAND_TIMEOUT_MS }, async () => {
    const block = commandBlock(/^grep /);
    const out = (await succeed(block)).split("\n");
    // Every line the README shows appears, in the same order ("..." stands for lines left out).
    let at = 0;
    for (const line of outputOf(block)
      .code.split("\n")
      .filter((l) => l && l !== "...")) {
      const found = out.indexOf(line, at);
      expect(found, `README shows '${line}', the command printed:\n${out.join("\n")}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });

  it("serves the new routes under npm start as the README shows", { timeout: 500_000 }, async () => {
    offline = await startOffline({ projectDir: copy, args: ["--empty"], testUser: false });
    const block = commandBlock(/^curl /);
    const answers = (await succeed(block))
      .replace(/}\s*{/g, "}\n{")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
    const shown = outputOf(block)
      .code.split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
    expect(answers).toEqual(shown);
    // And the operation's route is there (a missing bookmark: 404, in our format).
    const share = await fetch(`${offline.url}/bookmarks/00000000-0000-4000-8000-000000000000/share`);
    expect(share.status).toBe(404);
    expect(await share.json()).toMatchObject({ code: 404 });
  });
});
