import { describe, expect, it } from "vitest";
import { DEFAULT_DATA_DIR, DEFAULT_DB_PORT, DEFAULT_IDP_PORT, npmConfigArgs, parseStartOptions } from "./start-options.ts";

const DEFAULT_PORTS = { http: 3000, websocket: 3001, lambda: 3002, idp: DEFAULT_IDP_PORT, db: DEFAULT_DB_PORT };
/** What `npm start <flags>` (no `--`) hands the script: npm's lifecycle and its config variables. */
const npmStart = (config: Record<string, string>): NodeJS.ProcessEnv => ({
  npm_lifecycle_event: "start",
  ...Object.fromEntries(Object.entries(config).map(([name, value]) => [`npm_config_${name}`, value])),
});

describe("parseStartOptions", () => {
  it("defaults to an in-memory database on the usual ports", () => {
    expect(parseStartOptions([])).toEqual({ dataDir: undefined, dbPort: DEFAULT_DB_PORT, ports: DEFAULT_PORTS, empty: false, routes: false, help: false });
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

  it("reads every port from its flag, else its environment variable, else the default", () => {
    const env = { OFFLINE_HTTP_PORT: "4100", OFFLINE_WEBSOCKET_PORT: "4101", OFFLINE_LAMBDA_PORT: "4102", IDP_PORT: "4103", DYNAMODB_PORT: "4104" };
    expect(parseStartOptions([], env).ports).toEqual({ http: 4100, websocket: 4101, lambda: 4102, idp: 4103, db: 4104 });
    expect(parseStartOptions([], env).dbPort).toBe(4104);
    const flags = ["--http-port", "5100", "--websocket-port", "5101", "--lambda-port", "5102", "--idp-port", "5103", "--db-port", "5104"];
    expect(parseStartOptions(flags, env).ports).toEqual({ http: 5100, websocket: 5101, lambda: 5102, idp: 5103, db: 5104 });
    expect(parseStartOptions(["--http-port", "5100"], {}).ports).toEqual({ ...DEFAULT_PORTS, http: 5100 });
  });

  it("refuses a port that is not one, or two services on one port, naming the option", () => {
    expect(() => parseStartOptions(["--http-port", "0"])).toThrow(/--http-port: expected a port/);
    expect(() => parseStartOptions(["--idp-port", "3003.5"])).toThrow(/--idp-port/);
    expect(() => parseStartOptions([], { OFFLINE_WEBSOCKET_PORT: "70000" })).toThrow(/OFFLINE_WEBSOCKET_PORT: expected a port/);
    expect(() => parseStartOptions(["--websocket-port", "3000"])).toThrow(/--websocket-port: port 3000 is also the http port/);
  });

  it("names the option it refuses", () => {
    expect(() => parseStartOptions(["--db-port", "80x"])).toThrow(/--db-port/);
    expect(() => parseStartOptions(["--data-dir", " "])).toThrow(/--data-dir/);
    expect(() => parseStartOptions(["--verbose"])).toThrow(/verbose/);
  });
});

describe("options typed without `--` (npm keeps them as its config)", () => {
  it("npm start --persist --empty --routes work as typed", () => {
    expect(parseStartOptions([], npmStart({ persist: "true", empty: "true", routes: "true" }))).toMatchObject({
      dataDir: DEFAULT_DATA_DIR,
      empty: true,
      routes: true,
    });
  });

  it("npm start --http-port=4100 --data-dir=x work as typed", () => {
    expect(parseStartOptions([], npmStart({ http_port: "4100", data_dir: "x" }))).toMatchObject({ dataDir: "x", ports: { ...DEFAULT_PORTS, http: 4100 } });
  });

  it("npm start --data-dir x (npm keeps the flag, passes x on) stops with the command that works", () => {
    expect(() => parseStartOptions(["x"], npmStart({ data_dir: "true" }))).toThrow("run `npm start -- --data-dir <value>`");
    // The value alone, its option lost to npm: where options go.
    expect(() => parseStartOptions(["x"])).toThrow(/options go after `--`/);
  });

  it("reads npm's config only under npm start: elsewhere those variables are someone's npm settings", () => {
    expect(npmConfigArgs({ npm_config_persist: "true" })).toEqual([]);
    expect(npmConfigArgs({ npm_lifecycle_event: "test", npm_config_persist: "true" })).toEqual([]);
    expect(npmConfigArgs(npmStart({ persist: "true", empty: "false" }))).toEqual(["--persist"]);
  });
});
