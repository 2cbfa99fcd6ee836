import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { app as fixture } from "../fixtures/blog/index.ts";
import { SAMPLE_MARKER, SAMPLE_TESTS } from "./sample-tests.ts";

/**
 * Replacing or removing the sample (app/) must leave the framework's tests and the framework as they
 * are: the tests build their applications from test/fixtures/blog, and lib/ (which `webda new`
 * copies into every new project) names no sample. This file proves both from the sources alone.
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APP = join(ROOT, "app") + sep;

function files(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : files(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const source = (name: string): boolean => /\.(ts|mts|mjs|js)$/.test(name);
const parse = (file: string, text = readFileSync(join(ROOT, file), "utf8")): ts.SourceFile =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, /\.m?ts$/.test(file) ? ts.ScriptKind.TS : ts.ScriptKind.JS);

function visit(node: ts.Node, each: (node: ts.Node) => void): void {
  each(node);
  node.forEachChild((child) => visit(child, each));
}

/** The relative module specifiers a file loads: static imports and re-exports, `import("...")`, `new URL("...", import.meta.url)`. */
function loadedPaths(file: string, text?: string): string[] {
  const found: string[] = [];
  visit(parse(file, text), (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) found.push(first.text);
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "URL") {
      const [first, base] = node.arguments ?? [];
      if (first && ts.isStringLiteralLike(first) && base?.getText().includes("import.meta.url")) found.push(first.text);
    }
  });
  return found.filter((path) => path.startsWith("."));
}

/** Every string a file's code holds (literals and template text), comments left out. */
function strings(file: string, text?: string): string[] {
  const found: string[] = [];
  visit(parse(file, text), (node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) found.push(node.text);
  });
  return found;
}

// The sample's own names: its model classes other than User (every application has users, and the
// framework's identity model is one), their route segments (`/posts`) and the GraphQL fields named
// after them (`createPost`). A class name that is also CloudFormation's own word (a resource's `Tag`,
// `Tags`) counts in its route and GraphQL forms only.
const SAMPLE_MODELS = fixture
  .models()
  .map((info) => info.name)
  .filter((name) => name !== "User");
const CLOUDFORMATION_WORDS = new Set(["Tag"]);
const SAMPLE_WORDS = new RegExp(
  `${SAMPLE_MODELS.flatMap((name) => [
    ...(CLOUDFORMATION_WORDS.has(name) ? [] : [`\\b${name}s?\\b`]),
    `/${name.toLowerCase()}s\\b`,
    `\\bcreate${name}\\b`,
  ]).join("|")}|[Bb]log`,
);

describe("the framework's tests, without the sample", () => {
  const sampleTests = new Set(SAMPLE_TESTS);

  it("lists sample tests that exist", () => {
    expect(SAMPLE_TESTS.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it("load nothing from app/ outside the sample's own tests (test/setup/sample-tests.ts)", () => {
    const framework = [...files("test", source), ...files("lib", source), ...files("functions", (name) => name.endsWith(".test.ts"))]
      .map((file) => relative(ROOT, join(ROOT, file)))
      .filter((file) => !sampleTests.has(file));
    expect(framework.length).toBeGreaterThan(100);
    // Parsed only where a path could reach app/ at all: most files name no `app` path.
    const candidates = framework.filter((file) => /\bapp\//.test(readFileSync(join(ROOT, file), "utf8")));
    const loading = candidates.flatMap((file) =>
      loadedPaths(file)
        .filter((path) => resolve(ROOT, dirname(file), path).startsWith(APP))
        .map((path) => `${file}: ${path}`),
    );
    expect(loading).toEqual([]);
  });

  it("would see app/ loaded in any of those forms (the check above is not blind)", () => {
    const text = [
      'import { app } from "../../app/index.ts";',
      'export { seed } from "../../app/seed/data.ts";',
      'const m = await import("../../app/definition.ts");',
      'const u = new URL("../../app/models/post.ts", import.meta.url);',
      'const s = "../../app/index.ts"; // a string alone loads nothing',
    ].join("\n");
    const paths = loadedPaths("test/core/example.test.ts", text);
    expect(paths).toHaveLength(4);
    expect(paths.every((path) => resolve(ROOT, "test/core", path).startsWith(APP))).toBe(true);
  });

  it("names the sample's marker, which the sample has", () => {
    // While app/ is the sample its tests run; once it is not, they are left out (vitest.config.ts).
    expect(existsSync(join(ROOT, "test/fixtures/blog/models/post.ts"))).toBe(true);
    expect(SAMPLE_MARKER).toBe("app/models/post.ts");
  });
});

describe("lib/, which every new project copies", () => {
  it("says 'blog' nowhere, in code, comments, tests or templates", () => {
    const naming = files("lib", () => true).filter((file) => /blog/i.test(readFileSync(join(ROOT, file), "utf8")));
    expect(naming).toEqual([]);
  });

  it("holds no string naming the sample's models, routes or GraphQL fields outside its tests", () => {
    expect(SAMPLE_MODELS).toEqual(expect.arrayContaining(["Post", "Comment"]));
    const code = files("lib", (name) => source(name) && !/\.test\.(ts|mjs)$/.test(name));
    expect(code.length).toBeGreaterThan(100);
    // Parsed only where the words occur at all (most are in comments: examples such as `GET /posts/{slug}`).
    const naming = code
      .filter((file) => SAMPLE_WORDS.test(readFileSync(join(ROOT, file), "utf8")))
      .flatMap((file) =>
        strings(file)
          .filter((text) => SAMPLE_WORDS.test(text))
          .map((text) => `${file}: ${JSON.stringify(text.slice(0, 80))}`),
      );
    expect(naming).toEqual([]);
  });

  it("would see such a string, and not a comment (the check above is not blind)", () => {
    const text = ["// GET /posts/{slug} in a comment is an example", 'const a = "POST";', "const b = `/posts/${slug}`;", 'const c = { type: "Comment" };'].join(
      "\n",
    );
    expect(strings("lib/example.ts", text).filter((s) => SAMPLE_WORDS.test(s))).toEqual(["/posts/", "Comment"]);
  });
});
