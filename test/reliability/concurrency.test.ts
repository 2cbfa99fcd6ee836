import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model, type Action, type Decision } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { as } from "../support/blog.ts";
import { createModelTables } from "../support/model-tables.ts";
import { inProcess } from "../support/parts.ts";

const FIELDS = 100;

/** A hundred independent optional fields, and a key the client chooses (for racing creates). */
class Ledger extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["code"] as const;
  static override readonly schema = Type.Object({
    code: Type.String(),
    owner: Type.Optional(Type.String()),
    ...Object.fromEntries(Array.from({ length: FIELDS }, (_, i) => [`f${i}`, Type.Optional(Type.Integer())])),
  });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

let app: Application;
let info: NonNullable<ReturnType<Application["model"]>>;

beforeAll(async () => {
  const prefix = `race-${randomUUID().slice(0, 8)}-`;
  app = new Application({ name: "race", version: "0", models: [Ledger], serviceTypes: [], services: {} }, inProcess).useStore(dynamoStore(prefix));
  await createModelTables(app, prefix);
  const found = app.model("Ledger");
  if (!found) throw new Error("missing model");
  info = found;
});

function tally(results: PromiseSettledResult<unknown>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const key = r.status === "fulfilled" ? "ok" : String((r.reason as { status?: number }).status ?? (r.reason as Error).name);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

describe("concurrency on DynamoDB Local", () => {
  it(`keeps all ${FIELDS} concurrent patches of distinct fields of one record`, async () => {
    const code = `patch-${randomUUID()}`;
    await app.domain.create(as(), info, { code });
    const results = await Promise.allSettled(Array.from({ length: FIELDS }, (_, i) => app.domain.patch(as(), info, { code }, { [`f${i}`]: i })));
    const final = await app.domain.get(as(), info, { code });
    const lost = Array.from({ length: FIELDS }, (_, i) => i).filter((i) => final.data[`f${i}`] !== i);
    console.info(`[reliability] ${FIELDS} concurrent patches: ${JSON.stringify(tally(results))}, lost ${lost.length}, final version ${final.version}`);
    expect(tally(results)).toEqual({ ok: FIELDS });
    expect(lost).toEqual([]);
    expect(final.version).toBe(FIELDS + 1);
  });

  it("lets exactly one of 100 concurrent creates of one key succeed; the others get 409", async () => {
    const code = `create-${randomUUID()}`;
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => app.domain.create(as(), info, { code, f0: i })));
    console.info(`[reliability] 100 concurrent creates of one key: ${JSON.stringify(tally(results))}`);
    expect(tally(results)).toEqual({ ok: 1, 409: 99 });
    const winner = results.find((r) => r.status === "fulfilled");
    expect((await app.domain.get(as(), info, { code })).data.f0).toBe(winner?.value.data.f0);
  });

  it("applies every one of 20 concurrent PUTs without If-Match (the re-read and retry loop), last writer wins", async () => {
    const code = `put-${randomUUID()}`;
    await app.domain.create(as(), info, { code });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => app.domain.update(as(), info, { code }, { code, owner: `w${i}`, f1: i })));
    console.info(`[reliability] 20 concurrent PUTs without If-Match: ${JSON.stringify(tally(results))}`);
    expect(tally(results)).toEqual({ ok: 20 });
    const written = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(written.map((w) => w.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // The stored record is whole: the last writer's body, never a mix of two.
    const last = written.find((w) => w.version === 21);
    const final = await app.domain.get(as(), info, { code });
    expect(final.data).toMatchObject({ owner: last?.data.owner, f1: last?.data.f1 });
    expect(final.data.owner).toBe(`w${final.data.f1 as number}`);
  });
});
