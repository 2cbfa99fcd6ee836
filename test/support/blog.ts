import { Application, type ApplicationParts } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { DomainError } from "../../lib/core/errors.ts";
import type { RepositoryFactory } from "../../lib/store/repository.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { definition } from "../fixtures/blog/index.ts";
import { inProcess } from "./parts.ts";

export const ALICE = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0001";
export const BOB = "0b6d3f3e-7a51-4c1e-9a43-6f1c2f0a0002";

export function as(userId?: string): Context {
  return new Context(userId ? { userId } : {});
}

/** A fresh blog application on its own store (memory unless told otherwise), with every part unless told otherwise. */
export function blog(store: RepositoryFactory = memoryStore, parts: ApplicationParts = inProcess): Application {
  return new Application(definition, parts).useStore(store);
}

export function model(app: Application, name: string) {
  const info = app.model(name);
  if (!info) throw new Error(`no model ${name}`);
  return info;
}

export const post = (slug: string, status = "published", extra: Record<string, unknown> = {}) => ({
  slug,
  title: `Title of ${slug}`,
  content: "Some content",
  status,
  viewCount: 0,
  ...extra,
});

/** The DomainError a promise rejects with (fails the test when it resolves or throws anything else). */
export async function failure(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a domain error");
}
