import { FileRepository } from "./file.ts";
import { MemoryRepository } from "./memory.ts";
import type { RepositoryFactory } from "./repository.ts";

/**
 * The stores of an application run in-process (tests, tools, scripts): records in this process's
 * memory, or JSON files under a folder. The functions (Lambda, `npm start`) store in DynamoDB only
 * (select.ts, select-records.ts) and do not bundle these.
 */
export const memoryStore: RepositoryFactory = (_model, table) => new MemoryRepository(table);

export function fileStore(root: string): RepositoryFactory {
  return (model, table) => new FileRepository(root, model, table);
}
