import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import type { ModelInfo } from "../../lib/core/model-info.ts";
import { belongsTo, manyToMany, Model, Type, type Action, type Decision, type ListLimits, type RelationDeclarations } from "../../lib/index.ts";
import { createDocumentClient } from "../../lib/store/dynamodb-client.ts";
import { tableName } from "../../lib/store/dynamodb-tables.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { memoryStore } from "../../lib/store/local-stores.ts";
import type { RepositoryFactory } from "../../lib/store/repository.ts";
import { createModelTables } from "../support/model-tables.ts";
import { as } from "../support/blog.ts";
import { graphqlBlog } from "./support.ts";
import { inProcess } from "../support/parts.ts";

/**
 * A many-to-many relation list reads its join rows under the join model's read budget:
 * a parent with many join rows costs at most the budget per request, never all its rows. On the
 * old code `labels(limit: 20)` read all twelve join rows of the thing and answered twelve labels.
 */
class Label extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String() });
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

class ThingLabel extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["thing", "label"] as const;
  static override readonly schema = Type.Object({ thing: Type.String(), label: Type.String() });
  // A budget of five join rows per list, the relation's page included.
  static override readonly limits: ListLimits = { default: 10, max: 100, maxRead: 5 };
  static override readonly relations: RelationDeclarations = {
    thing: belongsTo(() => Thing, { requires: { read: "read" } }),
    label: belongsTo(() => Label),
  };
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

class Thing extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["id"] as const;
  static override readonly schema = Type.Object({ id: Type.String() });
  static override readonly relations: RelationDeclarations = {
    labels: manyToMany(() => Label, { through: () => ThingLabel, from: "thing", to: "label" }),
  };
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

const LABELS = Array.from({ length: 12 }, (_, i) => `l${String(i).padStart(2, "0")}`);

const documents = createDocumentClient(process.env.DYNAMODB_ENDPOINT);
afterAll(() => documents.destroy());

async function things(store: "memory" | "dynamodb") {
  const prefix = `m2m-${randomUUID().slice(0, 8)}-`;
  const factory: RepositoryFactory = store === "memory" ? memoryStore : (name, table) => new DynamoRepository(documents, tableName(prefix, name), table);
  const app = new Application({ name: "things", version: "0", models: [Thing, Label, ThingLabel], serviceTypes: [], services: {} }, inProcess).useStore(
    factory,
  );
  if (store === "dynamodb") await createModelTables(app, prefix);
  const [thing, label, join] = ["Thing", "Label", "ThingLabel"].map((n) => app.model(n) as ModelInfo) as [ModelInfo, ModelInfo, ModelInfo];
  await app.domain.create(as(), thing, { id: "t1" });
  await app.domain.create(as(), thing, { id: "t2" });
  for (const id of LABELS) await app.domain.create(as(), label, { id });
  for (const id of LABELS) await app.domain.create(as(), join, { thing: "t1", label: id });
  await app.domain.create(as(), join, { thing: "t2", label: "l03" });
  return graphqlBlog({}, app);
}

interface Page {
  results: { label: { id: string } }[];
  continuationToken: string | null;
}

describe.each(["memory", "dynamodb"] as const)("a many-to-many relation list under the join model's read budget (%s)", (store) => {
  it("reads at most the budget of join rows; the join model's list resumes where it ended", async () => {
    const g = await things(store);
    const data = await g.data(`{ Things { results { id labels(limit: 20) { id } } } }`);
    const results = (data.Things as { results: { id: string; labels: { id: string }[] }[] }).results;
    const byId = Object.fromEntries(results.map((r) => [r.id, r.labels.map((l) => l.id)]));
    // The budget (5) ended before the limit (20): the first five in key order, not all twelve.
    expect(byId.t1).toEqual(LABELS.slice(0, 5));
    expect(byId.t2).toEqual(["l03"]);
    // A limit under the budget is a full page.
    const two = await g.data(`{ Thing(id: "t1") { labels(limit: 2) { id } } }`);
    expect((two.Thing as { labels: { id: string }[] }).labels.map((l) => l.id)).toEqual(["l00", "l01"]);
    // Following the join model's tokens yields every label once, each page within the budget.
    const seen: string[] = [];
    let offset: string | null = null;
    let pages = 0;
    do {
      const args: string = offset ? `, offset: ${JSON.stringify(offset)}` : "";
      const page: Page = (await g.data(`{ ThingLabels(query: "thing = 't1'", limit: 20${args}) { results { label { id } } continuationToken } }`))
        .ThingLabels as Page;
      expect(page.results.length).toBeLessThanOrEqual(5);
      seen.push(...page.results.map((r) => r.label.id));
      offset = page.continuationToken;
    } while (offset !== null && ++pages < 10);
    expect(seen).toEqual(LABELS);
  });
});
