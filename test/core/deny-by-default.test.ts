import { describe, expect, it } from "vitest";
import { definition } from "../fixtures/blog/index.ts";
import { Application } from "../../lib/core/application.ts";
import { Model, Operation, Type, type ModelClass, type Static } from "../../lib/index.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import { ALICE, as, failure } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

const OpenInput = Type.Object({ reason: Type.String() });

/** A model that declares no `canAct`: by the framework's rule (lib/core/model.ts) nobody may touch it. */
class Vault extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["slug"] as const;
  static override readonly schema = Type.Object({ slug: Type.String({ minLength: 1 }), secret: Type.String() });
  declare slug: string;

  @Operation({ input: OpenInput, output: Type.String(), errors: [] })
  async open({ reason }: Static<typeof OpenInput>): Promise<string> {
    return `opened ${this.slug}: ${reason}`;
  }
}

function vaultApp() {
  const app = new Application({ ...definition, models: [...definition.models, Vault as unknown as ModelClass] }, inProcess).useStore(memoryStore);
  const info = app.model("Vault");
  if (!info) throw new Error("Vault is not registered");
  return { app, info };
}

describe("a model without canAct", () => {
  it("denies every action to anonymous and signed-in callers alike, and its records stay as stored", async () => {
    const { app, info } = vaultApp();
    // Seeded below the domain: nothing above it may write one.
    await app.repository(info).create({ slug: "kept", secret: "the combination" });
    for (const ctx of [as(), as(ALICE)]) {
      const refused = ctx.getCurrentUserId() === undefined ? 401 : 403;
      expect((await failure(app.domain.create(ctx, info, { slug: `new-${refused}`, secret: "x" }))).status).toBe(refused);
      // A record the caller may not read looks missing, on reads and writes alike.
      expect((await failure(app.domain.get(ctx, info, { slug: "kept" }))).status).toBe(404);
      expect((await failure(app.domain.update(ctx, info, { slug: "kept" }, { slug: "kept", secret: "changed" }))).status).toBe(404);
      expect((await failure(app.domain.patch(ctx, info, { slug: "kept" }, { secret: "changed" }))).status).toBe(404);
      expect((await failure(app.domain.delete(ctx, info, { slug: "kept" }))).status).toBe(404);
      expect((await failure(app.domain.invoke(ctx, info, "open", { slug: "kept" }, { reason: "curiosity" }))).status).toBe(404);
      expect((await app.domain.query(ctx, info, {})).results).toEqual([]);
      expect(await app.domain.load(ctx, info, [{ slug: "kept" }])).toEqual([]);
    }
    expect(await app.repository(info).get({ slug: "kept" })).toMatchObject({ secret: "the combination" });
    expect(await app.repository(info).get({ slug: "new-401" })).toBeUndefined();
    expect(await app.repository(info).get({ slug: "new-403" })).toBeUndefined();
  });
});
