import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TableShape } from "../../lib/core/model-info.ts";
import { Model } from "../../lib/core/model.ts";
import { MemoryRepository } from "../../lib/store/memory.ts";
import type { Item, RepositoryFactory } from "../../lib/store/repository.ts";
import { fileStore } from "../../lib/store/local-stores.ts";
import { ALICE, as, blog, model } from "../support/blog.ts";

/** A v3 user row as webda v3 left it: no `__version`, a `__password`, v3 bookkeeping fields. */
const row: Item = {
  uuid: ALICE,
  username: "alice",
  email: "alice@example.com",
  name: "Alice",
  __password: "$2a$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
  _creationDate: "2023-01-01T00:00:00.000Z",
};

/** The memory store, with a way in for a row written by "another program". */
class SeededMemory extends MemoryRepository {
  seed(item: Item): Promise<void> {
    return this.save(JSON.stringify([item.uuid]), item);
  }
}

async function memoryWithRow(): Promise<RepositoryFactory> {
  const repositories = new Map<string, SeededMemory>();
  const factory: RepositoryFactory = (name: string, table: TableShape) => {
    let repository = repositories.get(name);
    if (!repository) repositories.set(name, (repository = new SeededMemory(table)));
    return repository;
  };
  const users = factory("User", { key: { hash: "uuid" }, indexes: [] }) as SeededMemory;
  await users.seed(row);
  return factory;
}

function fileWithRow(): RepositoryFactory {
  const root = mkdtempSync(join(tmpdir(), "envelope-"));
  mkdirSync(join(root, "User"), { recursive: true });
  // The file store's layout: one JSON file per record, named by its key.
  writeFileSync(join(root, "User", `${Buffer.from(JSON.stringify([ALICE])).toString("base64url")}.json`), JSON.stringify(row));
  return fileStore(root);
}

describe.each([
  ["memory", memoryWithRow],
  ["file", async () => fileWithRow()],
])("%s store: rows without an envelope (spec 9.5)", (_name, make) => {
  it("are read as model instances at version 0, listed, updated and patched", async () => {
    const store = await make();
    const app = blog(store);
    const User = model(app, "User");
    const got = await app.domain.get(as(ALICE), User, { uuid: ALICE });
    expect(got.version).toBe(0);
    expect(got.data).toMatchObject({ uuid: ALICE, username: "alice", email: "alice@example.com" });
    expect(got.data).not.toHaveProperty("__password");
    const stored = await app.repository(User).get({ uuid: ALICE });
    expect(stored && Object.assign(new User.cls(), stored)).toBeInstanceOf(Model);
    const listed = await app.domain.query(as(ALICE), User, {});
    expect(listed.results.map((u) => u.uuid)).toContain(ALICE);
    const patched = await app.domain.patch(as(ALICE), User, { uuid: ALICE }, { name: "Alice A." }, { expectedVersion: 0 });
    expect(patched.version).toBe(1);
    const updated = await app.domain.update(as(ALICE), User, { uuid: ALICE }, { username: "alice", name: "Alice B." }, { expectedVersion: 1 });
    expect(updated.version).toBe(2);
    // What the store holds (read around the auth service's v3 user mapping, which compatibility.v3
    // installs from the start) kept the v3 password through both writes.
    const held = await store("User", User.table).get({ uuid: ALICE });
    // A full replace stores the mapped shape (lib/auth/v3/user-repository.ts): the same hash.
    expect(held).toMatchObject({ __version: 2, name: "Alice B.", password: { __hash: row.__password } });
    expect(held).not.toHaveProperty("__password");
  });
});
