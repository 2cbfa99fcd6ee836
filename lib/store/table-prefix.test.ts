import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../core/config.ts";
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
});
