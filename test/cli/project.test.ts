import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCreateApp, readProject } from "../../lib/cli/project.ts";

function projectWith(pkg: unknown, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "webda-project-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify(pkg));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("a project's webda settings (package.json `webda`)", () => {
  it("reads a project's name and application module", () => {
    expect(readProject(projectWith({ version: "1.2.3", webda: { project: "tracker", app: "app/index.ts" } }))).toMatchObject({
      project: "tracker",
      app: "app/index.ts",
    });
  });

  it("refuses a name that cannot name a stack or tables, and an application module outside the project", () => {
    expect(() => readProject(projectWith({ webda: { project: "My_App", app: "app/index.ts" } }))).toThrow(/`webda.project` must be/);
    expect(() => readProject(projectWith({ webda: { app: "app/index.ts" } }))).toThrow(/`webda.project` must be/);
    expect(() => readProject(projectWith({ webda: { project: "ok", app: "app/../../elsewhere.ts" } }))).toThrow(/`webda.app` must name/);
    expect(() => readProject(projectWith({ webda: { project: "ok", app: "/etc/app.ts" } }))).toThrow(/`webda.app` must name/);
  });

  it("refuses an application module without createApp, naming it", async () => {
    const dir = projectWith({ webda: { project: "ok", app: "app.mjs" } }, { "app.mjs": "export const app = {};\n" });
    await expect(loadCreateApp(dir)).rejects.toThrow("app.mjs must export createApp(parts)");
  });
});
