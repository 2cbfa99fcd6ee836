import { describe, expect, it } from "vitest";
import { DEFAULT_DATA_DIR, DEFAULT_DB_PORT, parseStartOptions } from "./start-options.ts";

describe("parseStartOptions", () => {
  it("defaults to an in-memory database on the usual port", () => {
    expect(parseStartOptions([])).toEqual({ dataDir: undefined, dbPort: DEFAULT_DB_PORT, empty: false, routes: false, help: false });
  });

  it("keeps data under .data/ with --persist, or where --data-dir says", () => {
    expect(parseStartOptions(["--persist"]).dataDir).toBe(DEFAULT_DATA_DIR);
    expect(parseStartOptions(["--data-dir", "/tmp/db"]).dataDir).toBe("/tmp/db");
    expect(parseStartOptions(["--persist", "--data-dir", "x"]).dataDir).toBe("x");
  });

  it("starts without sample data with --empty", () => {
    expect(parseStartOptions(["--empty"]).empty).toBe(true);
    expect(parseStartOptions(["--persist", "--empty"])).toMatchObject({ dataDir: DEFAULT_DATA_DIR, empty: true });
  });

  it("shows offline's route table only with --routes", () => {
    expect(parseStartOptions(["--routes"]).routes).toBe(true);
  });

  it("reads the database port and help", () => {
    expect(parseStartOptions(["--db-port", "8123"]).dbPort).toBe(8123);
    expect(parseStartOptions(["-h"]).help).toBe(true);
  });

  it("names the option it refuses", () => {
    expect(() => parseStartOptions(["--db-port", "80x"])).toThrow(/--db-port/);
    expect(() => parseStartOptions(["--data-dir", " "])).toThrow(/--data-dir/);
    expect(() => parseStartOptions(["--verbose"])).toThrow(/verbose/);
  });
});
