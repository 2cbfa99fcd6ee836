import { describe, expect, it } from "vitest";
import { usedStatesFromEnv } from "../../lib/auth/idp/used-states.ts";
import { ConfigurationError } from "../../lib/core/config.ts";
import { DynamoRecords } from "../../lib/store/dynamodb-records.ts";
import { DynamoRepository } from "../../lib/store/dynamodb.ts";
import { recordStoreFromEnv } from "../../lib/store/select-records.ts";
import { storeFromEnv } from "../../lib/store/select.ts";
import { TablePrefixMissing } from "../../lib/store/table-prefix.ts";

const TABLE = { key: { hash: "slug" }, indexes: [] };

// A function (Lambda, `npm start`) stores in DynamoDB: the memory and file stores are not in its
// bundle, so a STORE it cannot honour stops its cold start with the reason, not a silent fallback.
describe("the store a function chooses", () => {
  it.each([
    ["listing functions", storeFromEnv, DynamoRepository],
    ["key-read functions", recordStoreFromEnv, DynamoRecords],
  ] as const)("%s use DynamoDB tables named by TABLE_PREFIX", (_name, choose, cls) => {
    const repository = choose({ TABLE_PREFIX: "t-" })("Post", TABLE);
    expect(repository).toBeInstanceOf(cls);
    expect((repository as DynamoRecords).tableName).toBe("t-Post");
    expect(choose({ STORE: "dynamodb", TABLE_PREFIX: "u-" })("Post", TABLE)).toBeInstanceOf(cls);
  });

  it("refuses to start without TABLE_PREFIX rather than guess a project's tables", () => {
    for (const choose of [storeFromEnv, recordStoreFromEnv]) {
      expect(() => choose({})).toThrow(TablePrefixMissing);
      expect(() => choose({ STORE: "dynamodb", TABLE_PREFIX: "" })).toThrow(/a function's store: no table prefix/);
    }
    // The Idp's used states (its own table) read it from the same environment.
    expect(() => usedStatesFromEnv({})).toThrow(TablePrefixMissing);
    expect(() => usedStatesFromEnv({ TABLE_PREFIX: "app-dev-" })).not.toThrow();
  });

  it.each(["memory", "file:/tmp/records", "sqlite"])("refuses STORE=%s, naming where the in-process stores are", (store) => {
    for (const choose of [storeFromEnv, recordStoreFromEnv]) {
      expect(() => choose({ STORE: store })).toThrow(ConfigurationError);
      expect(() => choose({ STORE: store })).toThrow(/DynamoDB only.*local-stores\.ts/);
    }
  });
});
