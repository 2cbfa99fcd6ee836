import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { usageError, type Command } from "../commands.ts";
import { newProject, NewProjectRefused } from "./generate.ts";

export const NEW_USAGE = [
  "usage: webda new <dir> [--name NAME]",
  "",
  "Writes a new project in <dir> (absent or empty): the framework from this one, an application with",
  "one example model, its test and its seed, serverless.yml, package.json and its lock, a README.",
  "--name NAME  the project's name (the service, stack, tables, banner and mails); default: <dir>'s name",
  "",
  "Then: cd <dir> && npm ci && npm start",
].join("\n");

/** `webda new`: a project of one's own, offline, from this one (`root`). */
export function newCommand(root: string): Command {
  return {
    name: "new",
    summary: "start a project of your own: the framework, an example model, its test and seed (webda new --help)",
    usage: NEW_USAGE,
    takesOptions: true,
    async run(argv) {
      let dir: string | undefined;
      let name: string | undefined;
      try {
        const { values, positionals } = parseArgs({ args: argv, options: { name: { type: "string" } }, allowPositionals: true });
        if (positionals.length !== 1) throw new Error(positionals.length === 0 ? "name the new project's folder" : `one folder only, not '${positionals[1]}'`);
        dir = positionals[0];
        name = values.name;
      } catch (error) {
        console.error(usageError("new", error));
        return 2;
      }
      const target = resolve(dir ?? "");
      try {
        const files = newProject({ source: root, target, name: name ?? basename(target) });
        console.log(`${target}: ${files.length} files written, schema-cache/ rendered.\n\n  cd ${dir} && npm ci && npm start\n  npm test`);
        return 0;
      } catch (error) {
        if (!(error instanceof NewProjectRefused)) throw error;
        console.error(`webda new: ${error.message}`);
        return 2;
      }
    },
  };
}
