import { validateSchema } from "graphql";
import { describe, expect, it } from "vitest";
import { lazyRealtime } from "../../lib/realtime/local.ts";
import { memoryRepositories } from "./support.ts";
import { reservedNameApp } from "../support/reserved-schema.ts";

const reserved = reservedNameApp();

describe("the WebSocket and stream functions' schema", () => {
  it("is validated by graphql-js unless the function says packaging validated it (functions/ws.ts, stream.ts)", async () => {
    const checked = await lazyRealtime(reserved, { repositories: memoryRepositories() })();
    expect(
      validateSchema(checked.schema)
        .map((e) => e.message)
        .join(),
    ).toMatch(/__touchNote/);
    const trusted = await lazyRealtime(reserved, { repositories: memoryRepositories(), assumeValidSchema: true })();
    expect(validateSchema(trusted.schema)).toEqual([]);
  });
});
