import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../core/config.ts";
import { usedStatesFromEnv } from "../auth/idp/used-states.ts";
import { tablePrefix, TablePrefixMissing } from "./table-prefix.ts";

describe("the tables' prefix", () => {
  it("is the one given, else TABLE_PREFIX", () => {
    expect(tablePrefix("the store", "given-", { TABLE_PREFIX: "env-" })).toBe("given-");
    expect(tablePrefix("the store", undefined, { TABLE_PREFIX: "env-" })).toBe("env-");
  });

  it("is never guessed: unset or empty, it is refused naming what needed it and how to set it", () => {
    for (const env of [{}, { TABLE_PREFIX: "" }]) {
      const attempt = () => tablePrefix("the WebSocket tables", undefined, env);
      expect(attempt).toThrow(TablePrefixMissing);
      expect(attempt).toThrow(ConfigurationError);
      expect(attempt).toThrow("the WebSocket tables: no table prefix (set TABLE_PREFIX");
    }
  });

  it("is refused by what reads it from the environment (the Idp's used states)", () => {
    expect(() => usedStatesFromEnv({ STORE: "dynamodb" })).toThrow(TablePrefixMissing);
    expect(() => usedStatesFromEnv({ STORE: "dynamodb", TABLE_PREFIX: "app-dev-" })).not.toThrow();
  });
});
