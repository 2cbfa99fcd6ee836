import { validateSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { lazyRealtime } from "../../lib/realtime/local.ts";
import { memoryRepositories } from "./support.ts";

/** An operation field (`__touchNote`) GraphQL reserves for introspection: only validation catches it. */
class Note extends Model {
  static override readonly schema = Type.Object({ uuid: Type.String(), text: Type.String() });
  @Operation({ errors: [] })
  async __touch(): Promise<void> {}
}
const reserved = new Application({ name: "reserved", version: "1", models: [Note], serviceTypes: [], services: {} });

describe("the WebSocket and stream functions' schema", () => {
  it("is validated by graphql-js unless the function says packaging validated it (functions/ws.ts, stream.ts)", async () => {
    const checked = await lazyRealtime(reserved, { repositories: memoryRepositories() })();
    expect(validateSchema(checked.schema).map((e) => e.message).join()).toMatch(/__touchNote/);
    const trusted = await lazyRealtime(reserved, { repositories: memoryRepositories(), assumeValidSchema: true })();
    expect(validateSchema(trusted.schema)).toEqual([]);
  });
});
