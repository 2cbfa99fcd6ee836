import { context } from "esbuild";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outputsOf, rebuildKeepingLastGood } from "./keep-last-good.mjs";

const scratch = mkdtempSync(join(tmpdir(), "keep-last-good-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An esbuild context as serverless-esbuild makes one for a function: its entry into buildDir/functions. */
async function functionContext(name: string) {
  const source = join(scratch, `${name}.ts`);
  const buildDir = join(scratch, `build-${name}`);
  writeFileSync(source, 'export const handler = async () => "good";\n');
  const ctx = await context({
    entryPoints: [source],
    outdir: join(buildDir, "functions"),
    bundle: true,
    format: "esm",
    platform: "node",
    sourcemap: true,
    outExtension: { ".js": ".mjs" },
    logLevel: "silent",
  });
  await ctx.rebuild();
  return { ctx, source, buildDir, bundle: join("functions", name) };
}

describe("rebuildKeepingLastGood", () => {
  it("finds a bundle's code and source map, and no other bundle's", () => {
    const dir = join(scratch, "listing", "functions");
    mkdirSync(dir, { recursive: true });
    for (const name of ["rest.mjs", "rest.mjs.map", "rest-admin.mjs", "restful.mjs", ".last-good-rest.mjs"]) writeFileSync(join(dir, name), "");
    expect(outputsOf(join(scratch, "listing"), "functions/rest").sort()).toEqual([join(dir, "rest.mjs"), join(dir, "rest.mjs.map")]);
    expect(outputsOf(join(scratch, "listing"), "functions/none")).toEqual([]);
    expect(outputsOf(join(scratch, "nowhere"), "functions/rest")).toEqual([]);
  });

  it("esbuild alone deletes a bundle whose rebuild fails (why this exists)", async () => {
    const { ctx, source, buildDir } = await functionContext("bare");
    try {
      writeFileSync(source, "export const handler = ;\n");
      await expect(ctx.rebuild()).rejects.toThrow();
      expect(readdirSync(join(buildDir, "functions"))).toEqual([]);
    } finally {
      await ctx.dispose();
    }
  });

  it("leaves the last good bundle and its map in place when a rebuild fails, and takes a good one after", async () => {
    const { ctx, source, buildDir, bundle } = await functionContext("kept");
    const outputs = outputsOf(buildDir, bundle);
    const read = () => outputs.map((file) => readFileSync(file, "utf8"));
    try {
      expect(outputs).toHaveLength(2);
      const good = read();
      writeFileSync(source, "export const handler = ;\n");
      await expect(rebuildKeepingLastGood(() => ctx.rebuild(), outputsOf(buildDir, bundle))).rejects.toThrow(/Unexpected/);
      expect(read()).toEqual(good);
      // Nothing left aside: the folder holds the bundle and its map only.
      expect(readdirSync(join(buildDir, "functions")).sort()).toEqual(["kept.mjs", "kept.mjs.map"]);
      // Failed twice in a row: still the last good one.
      await expect(rebuildKeepingLastGood(() => ctx.rebuild(), outputsOf(buildDir, bundle))).rejects.toThrow();
      expect(read()).toEqual(good);
      writeFileSync(source, 'export const handler = async () => "fixed";\n');
      await rebuildKeepingLastGood(() => ctx.rebuild(), outputsOf(buildDir, bundle));
      expect(read()[0]).toContain('"fixed"');
      expect(readdirSync(join(buildDir, "functions")).sort()).toEqual(["kept.mjs", "kept.mjs.map"]);
    } finally {
      await ctx.dispose();
    }
  });
});
