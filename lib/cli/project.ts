import { readFileSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import type { Application, ApplicationParts } from "../core/application.ts";

/**
 * A project's own settings, in its package.json under `webda`: its name (serverless.yml's service,
 * so the stack, the tables' prefix and the metrics namespace; the application names itself the
 * same) and the module that builds its application. Nothing in lib/ names an application: the
 * `webda` command, `npm start` and the seeders find it here.
 */
export interface ProjectConfig {
  /** Lowercase letters, digits and dashes, a letter first: a CloudFormation stack and table name part. */
  project: string;
  /** The application module, relative to the project: it exports `createApp(parts)`. */
  app: string;
}

export const PROJECT_NAME = /^[a-z][a-z0-9-]{0,29}$/;

/** The project's `webda` settings, refused with a message naming the field when wrong. */
export function readProject(root: string): ProjectConfig & { version: string } {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown; webda?: Partial<Record<keyof ProjectConfig, unknown>> };
  const { project, app } = pkg.webda ?? {};
  if (typeof project !== "string" || !PROJECT_NAME.test(project)) {
    throw new Error("package.json: `webda.project` must be the project's name (lowercase letters, digits and dashes, a letter first, 30 at most)");
  }
  if (typeof app !== "string" || isAbsolute(app) || normalize(app).startsWith("..")) {
    throw new Error("package.json: `webda.app` must name the application module inside the project (e.g. app/index.ts)");
  }
  return { project, app, version: typeof pkg.version === "string" ? pkg.version : "0.0.0" };
}

/** What the application module exports: the one function every tool builds the application with. */
export type CreateApp = (parts?: ApplicationParts) => Application;

/** The project's application module (`webda.app`), imported: `npm start` and the seeders read its `app` and `seed` too. */
export async function loadAppModule(root: string, config: ProjectConfig = readProject(root)): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(join(root, config.app)).href)) as Record<string, unknown>;
}

/** The project's application module's `createApp`, imported from `webda.app`. */
export async function loadCreateApp(root: string, config: ProjectConfig = readProject(root)): Promise<CreateApp> {
  const module = await loadAppModule(root, config);
  if (typeof module.createApp !== "function") throw new Error(`${config.app} must export createApp(parts): the project's application`);
  return module.createApp as CreateApp;
}
