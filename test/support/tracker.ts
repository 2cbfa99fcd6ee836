import { randomUUID } from "node:crypto";
import { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import type { RepositoryFactory } from "../../lib/store/repository.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { tracker } from "../fixtures/tracker/index.ts";
import { createModelTables } from "./model-tables.ts";
import { inProcess } from "./parts.ts";

/** Reads by key per model (each `getMany`/`get` is one call to DynamoDB), counted by the tracker's store. */
export interface KeyReads {
  batches: Map<string, number>;
  reset(): void;
}

/**
 * The tracker fixture on DynamoDB Local, tables of its own; the store counts its reads by key so a
 * test can tell one batched read per related model from one per record.
 */
export async function trackerApp(): Promise<{ app: Application; reads: KeyReads; model: (name: string) => ModelInfo }> {
  const prefix = `tracker-${randomUUID().slice(0, 8)}-`;
  const reads: KeyReads = { batches: new Map(), reset: () => reads.batches.clear() };
  const count = (model: string) => reads.batches.set(model, (reads.batches.get(model) ?? 0) + 1);
  const dynamo = dynamoStore(prefix);
  const store: RepositoryFactory = (name, table) => {
    const repository = dynamo(name, table);
    const getMany = repository.getMany.bind(repository);
    const get = repository.get.bind(repository);
    repository.getMany = (keys) => (count(name), getMany(keys));
    repository.get = (key) => (count(name), get(key));
    return repository;
  };
  const app = new Application(tracker, inProcess).useStore(store);
  await createModelTables(app, prefix);
  const model = (name: string): ModelInfo => {
    const info = app.model(name);
    if (!info) throw new Error(`no model ${name}`);
    return info;
  };
  return { app, reads, model };
}
