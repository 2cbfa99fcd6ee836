// The rebuild step of `npm start`'s live reload, run in a short-lived child process: Node's ESM
// cache would hand the running process the application it imported first, so only a fresh
// process sees the edited models. It imports the application (which runs the configuration
// check), renders schema-cache/ and the tables, and sends the result to its parent over IPC.
// Nothing is written here: the parent decides whether the new version replaces the served one.
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

const [appModule, tablePrefix] = process.argv.slice(2);
const result = appModule && tablePrefix !== undefined
  ? await check(appModule, tablePrefix)
  : { ok: false as const, error: "usage: check.ts <app module> <table prefix>" };
// Exit only once the message is out: the IPC channel writes asynchronously.
process.send?.(result, () => process.exit(0));
