import { parseArgs } from "node:util";

export interface StartOptions {
  /** Directory of the on-disk database; undefined keeps it in memory. */
  dataDir: string | undefined;
  /** Port wished for DynamoDB Local; another free one is used if it is taken. */
  dbPort: number;
  /** Start with empty tables: no sample data even when the database is empty. */
  empty: boolean;
  /** Show serverless offline's route table and function list (hidden by default). */
  routes: boolean;
  help: boolean;
}

export const DEFAULT_DATA_DIR = ".data/dynamodb";
export const DEFAULT_DB_PORT = 8000;

export const START_USAGE = `usage: npm start [-- [--persist | --data-dir <dir>] [--db-port <port>] [--empty] [--routes]]

Starts DynamoDB Local, creates the tables, seeds the sample data when they are empty, then
serverless offline (HTTP http://127.0.0.1:3000, WebSocket ws://127.0.0.1:3001).

  --persist          keep the data on disk in ${DEFAULT_DATA_DIR} (default: in memory)
  --data-dir <dir>   keep the data on disk in <dir>
  --db-port <port>   DynamoDB Local port (default ${DEFAULT_DB_PORT}, another free one if taken)
  --empty            no sample data (\`npm run seed\` adds it later)
  --routes           show serverless offline's route table and function names at each start
  -h, --help         show this help

DYNAMODB_ENDPOINT=<url> uses that DynamoDB instead of starting one.`;

function port(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    throw new Error(`--db-port: expected a port number (1-65535), got "${text}"`);
  }
  return value;
}

/** Throws with a message naming the bad option; the caller prints it with the usage. */
export function parseStartOptions(argv: readonly string[]): StartOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      persist: { type: "boolean", default: false },
      "data-dir": { type: "string" },
      "db-port": { type: "string" },
      empty: { type: "boolean", default: false },
      routes: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const dataDir = values["data-dir"];
  if (dataDir !== undefined && dataDir.trim() === "") throw new Error("--data-dir: expected a directory");
  return {
    dataDir: dataDir ?? (values.persist ? DEFAULT_DATA_DIR : undefined),
    dbPort: values["db-port"] === undefined ? DEFAULT_DB_PORT : port(values["db-port"]),
    empty: values.empty,
    routes: values.routes,
    help: values.help,
  };
}
