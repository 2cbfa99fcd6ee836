// The rebuild step of `npm start`'s live reload, run in a short-lived child process: Node's ESM
// cache would hand the running process the application it imported first, so only a fresh
// process sees the edited models. It imports the application (which runs the configuration
// check), renders schema-cache/ and the tables, and sends the result to its parent over IPC; it
// receives what to check over IPC too, so that a spare can be started before the save.
// Nothing is written here: the parent decides whether the new version replaces the served one.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import type { Application } from "../../core/application.ts";
import { renderCache } from "../../cli/cache.ts";
import { cacheRenderers } from "../../cli/renderers.ts";
import { serviceTables } from "../../cli/tables.ts";
import type { CheckResult } from "./protocol.ts";

async function check(appModule: string, tablePrefix: string): Promise<CheckResult> {
  try {
    const loaded = (await import(pathToFileURL(appModule).href)) as { app?: Application };
    if (loaded.app === undefined) throw new Error(`${appModule} exports no \`app\``);
    const files = await renderCache(loaded.app, cacheRenderers);
    const tables: CreateTableCommandInput[] = serviceTables(loaded.app, tablePrefix);
    return { ok: true, files, tables };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A spare (`--preload`) imports the project's dependencies while nothing is being checked: they
 * sit under node_modules, which live reload does not watch, so loading them ahead changes nothing
 * the check sees, and the check then loads only the project's own modules. That was most of its time.
 */
async function preload(): Promise<void> {
  const manifest = JSON.parse(await readFile(join(process.cwd(), "package.json"), "utf8")) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    // A package for the browser (GraphiQL's) may refuse to load in Node: the app never imports it.
    await import(name).catch(() => undefined);
  }
}

interface CheckRequest {
  appModule: string;
  tablePrefix: string;
}

const spare = process.argv.includes("--preload");
// A spare says when it is ready: one still loading is no faster than a fresh process.
const ready = spare ? preload().then(() => void process.send?.({ ready: true })) : Promise.resolve();
process.once("message", (message: CheckRequest) => {
  void ready.then(async () => {
    const result =
      typeof message?.appModule === "string" && typeof message.tablePrefix === "string"
        ? await check(message.appModule, message.tablePrefix)
        : { ok: false as const, error: "check.ts expects { appModule, tablePrefix }" };
    // Exit only once the message is out: the IPC channel writes asynchronously.
    process.send?.(result, () => process.exit(0));
  });
});
