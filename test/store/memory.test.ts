import { MemoryRepository } from "../../lib/store/memory.ts";
import { repositoryContract } from "./contract.ts";

repositoryContract("memory", async (table) => new MemoryRepository(table));
