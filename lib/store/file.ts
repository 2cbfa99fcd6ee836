import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { TableShape } from "../core/model-info.ts";
import { ItemStore } from "./item-store.ts";
import type { Item } from "./repository.ts";

/**
 * One JSON file per record under `<root>/<model>/`, written atomically (temporary file + rename) so
 * a crash never leaves half a record. Conditional writes are atomic within one process only: this
 * store serves single-process use (local runs on machines without Java, tools), not Lambda fleets.
 */
export class FileRepository extends ItemStore {
  private readonly folder: string;

  constructor(root: string, modelName: string, table: TableShape) {
    super(table);
    this.folder = join(root, modelName);
  }

  private path(id: string): string {
    return join(this.folder, `${Buffer.from(id).toString("base64url")}.json`);
  }

  protected async load(id: string): Promise<Item | undefined> {
    try {
      return JSON.parse(await readFile(this.path(id), "utf8")) as Item;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  protected async save(id: string, item: Item): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    const temporary = join(this.folder, `.${randomUUID()}.tmp`);
    await writeFile(temporary, JSON.stringify(item));
    await rename(temporary, this.path(id));
  }

  protected async remove(id: string): Promise<void> {
    await rm(this.path(id), { force: true });
  }

  protected async all(): Promise<Item[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const files = names.filter((n) => n.endsWith(".json"));
    return Promise.all(files.map(async (n) => JSON.parse(await readFile(join(this.folder, n), "utf8")) as Item));
  }

  async clear(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true });
  }
}
