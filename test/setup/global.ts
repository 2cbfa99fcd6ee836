import type { TestProject } from "vitest/node";
import { app } from "../fixtures/blog/index.ts";
import { serviceTables } from "../../lib/cli/tables.ts";
import { setupDynamoDb } from "./dynamodb.ts";

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupDynamoDb(project, (prefix) => serviceTables(app, prefix));
}
