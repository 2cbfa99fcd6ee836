import { parseArgs } from "node:util";
import { DEFAULT_OFFLINE_PORTS, OFFLINE_PORT_ENV } from "../http/offline.ts";

export interface StartPorts {
  /** HTTP API (REST, GraphQL). */
  http: number;
  websocket: number;
  /** serverless offline's Lambda invoke API. */
  lambda: number;
  /** The local OpenID provider. */
  idp: number;
  /** Wished for DynamoDB Local; another free one is used if it is taken. */
  db: number;
}

export interface StartOptions {
  /** Directory of the on-disk database; undefined keeps it in memory. */
  dataDir: string | undefined;
  /** Port wished for DynamoDB Local; another free one is used if it is taken. */
  dbPort: number;
  ports: StartPorts;
  /** Start with empty tables: no sample data even when the database is empty. */
  empty: boolean;
  /** Show serverless offline's route table and function list (hidden by default). */
  routes: boolean;
  help: boolean;
}

export const DEFAULT_DATA_DIR = ".data/dynamodb";
export const DEFAULT_DB_PORT = 8000;
export const DEFAULT_IDP_PORT = 3003;

/** Each port: its flag, the environment variable that sets it too (the flag wins), its default. */
export const PORT_OPTIONS: readonly { key: keyof StartPorts; flag: string; env: string; fallback: number }[] = [
  { key: "http", flag: "http-port", env: OFFLINE_PORT_ENV.http, fallback: DEFAULT_OFFLINE_PORTS.http },
  { key: "websocket", flag: "websocket-port", env: OFFLINE_PORT_ENV.websocket, fallback: DEFAULT_OFFLINE_PORTS.websocket },
  { key: "lambda", flag: "lambda-port", env: OFFLINE_PORT_ENV.lambda, fallback: DEFAULT_OFFLINE_PORTS.lambda },
  { key: "idp", flag: "idp-port", env: "IDP_PORT", fallback: DEFAULT_IDP_PORT },
  { key: "db", flag: "db-port", env: "DYNAMODB_PORT", fallback: DEFAULT_DB_PORT },
];

export const START_USAGE = `usage: npm start [-- [--persist | --data-dir <dir>] [--empty] [--routes] [--<name>-port <port>]]

Starts DynamoDB Local, creates the tables, seeds the sample data when they are empty, then
serverless offline (HTTP http://127.0.0.1:3000, WebSocket ws://127.0.0.1:3001).

  --persist               keep the data on disk in ${DEFAULT_DATA_DIR} (default: in memory)
  --data-dir <dir>        keep the data on disk in <dir>
  --empty                 no sample data (\`npm run seed\` adds it later)
  --routes                show serverless offline's route table and function names at each start
  -h, --help              show this help

Ports (each also set by its environment variable; the flag wins):
${PORT_OPTIONS.map((p) => `  --${p.flag} <port>`.padEnd(26) + `${p.env}, default ${p.fallback}${p.key === "db" ? " (another free one if taken)" : ""}`).join("\n")}

Options go after \`--\` (npm keeps the others for itself); \`npm start --persist\` works too.
DYNAMODB_ENDPOINT=<url> uses that DynamoDB instead of starting one.`;

const BOOLEANS = ["persist", "empty", "routes"] as const;
const STRINGS = ["data-dir", ...PORT_OPTIONS.map((p) => p.flag)] as const;

function port(text: string, name: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(value) || value < 1 || value > 65_535) {
    throw new Error(`${name}: expected a port number (1-65535), got "${text}"`);
  }
  return value;
}

/**
 * The options typed before `--` in `npm start --persist`: npm keeps them as its own config and
 * hands them to the script only as `npm_config_<name>` (with an "Unknown cli config" warning).
 * A flag works so; an option with a value works as `--name=value`, while `--name value` loses
 * the value to npm (it passes it on as an argument of its own), so it stops with the fix.
 */
export function npmConfigArgs(env: NodeJS.ProcessEnv): string[] {
  // Only under `npm start`: elsewhere these variables are someone's npm configuration.
  if (env.npm_lifecycle_event !== "start") return [];
  const args: string[] = [];
  for (const name of BOOLEANS) {
    const value = env[`npm_config_${name}`];
    if (value === "true") args.push(`--${name}`);
  }
  for (const name of STRINGS) {
    const value = env[`npm_config_${name.replaceAll("-", "_")}`];
    if (value === undefined || value === "") continue;
    if (value === "true") {
      throw new Error(`npm took --${name} as its own option and kept its value: run \`npm start -- --${name} <value>\` (or \`npm start --${name}=<value>\`)`);
    }
    args.push(`--${name}`, value);
  }
  return args;
}

/** Throws with a message naming the bad option; the caller prints it with the usage. */
export function parseStartOptions(argv: readonly string[], env: NodeJS.ProcessEnv = {}): StartOptions {
  const fromNpm = npmConfigArgs(env);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...fromNpm, ...argv],
      strict: true,
      allowPositionals: false,
      options: {
        persist: { type: "boolean", default: false },
        "data-dir": { type: "string" },
        ...Object.fromEntries(PORT_OPTIONS.map((p) => [p.flag, { type: "string" as const }])),
        empty: { type: "boolean", default: false },
        routes: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    // `npm start --data-dir x` hands the script a bare "x": say where options go.
    const message = (error as Error).message;
    throw new Error(/positional/i.test(message) ? `${message}; options go after \`--\`: npm start -- --data-dir <dir>` : message, { cause: error });
  }
  const dataDir = values["data-dir"] as string | undefined;
  if (dataDir !== undefined && dataDir.trim() === "") throw new Error("--data-dir: expected a directory");
  const ports = Object.fromEntries(
    PORT_OPTIONS.map((p) => {
      const flag = (values as Record<string, unknown>)[p.flag] as string | undefined;
      const fromEnv = env[p.env];
      const value = flag !== undefined ? port(flag, `--${p.flag}`) : fromEnv ? port(fromEnv, p.env) : p.fallback;
      return [p.key, value];
    }),
  ) as unknown as StartPorts;
  const taken = new Map<number, string>();
  for (const p of PORT_OPTIONS) {
    const other = taken.get(ports[p.key]);
    if (other !== undefined) throw new Error(`--${p.flag}: port ${ports[p.key]} is also the ${other} port`);
    taken.set(ports[p.key], p.flag.replace(/-port$/, ""));
  }
  return {
    dataDir: dataDir ?? (values.persist === true ? DEFAULT_DATA_DIR : undefined),
    dbPort: ports.db,
    ports,
    empty: values.empty === true,
    routes: values.routes === true,
    help: values.help === true,
  };
}
