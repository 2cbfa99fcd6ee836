/** The files of a new project that are written for it rather than copied: package.json and its lock, vitest's configuration, the README. */

type Json = Record<string, unknown>;

/** The scripts a new project runs: this project's, less the sample's and the framework's benchmarks and fuzzing. */
const SCRIPTS = {
  build: "tsx lib/cli/main.ts build",
  validate: "tsx lib/cli/main.ts validate",
  start: "tsx scripts/start.ts",
  seed: "tsx scripts/seed.ts",
  test: "vitest run",
  typecheck: "tsc --noEmit",
  lint: "eslint . && prettier --check .",
  format: "prettier --write .",
};

/** The new project's package.json: this one's dependencies as they are (the lock stays valid), its own name and scripts. */
export function packageJson(source: Json, name: string): Json {
  return {
    name,
    version: "0.1.0",
    description: `${name}: REST, GraphQL and auth on AWS serverless, derived from its models`,
    private: true,
    type: "module",
    engines: source.engines,
    scripts: SCRIPTS,
    // The project's name (serverless.yml's service, the tables' prefix, the stack) and its application module.
    webda: { project: name, app: "app/index.ts" },
    bin: source.bin,
    dependencies: source.dependencies,
    devDependencies: source.devDependencies,
    allowScripts: source.allowScripts,
  };
}

/**
 * This project's lock with the new root package: the same resolved tree, so `npm ci` installs what
 * this project installed (from npm's cache when offline), and npm finds the lock in step with package.json.
 */
export function packageLock(lock: Json & { packages: Record<string, Json> }, pkg: Json): Json {
  const root = lock.packages[""] ?? {};
  const packages = {
    ...lock.packages,
    "": {
      ...root,
      name: pkg.name,
      version: pkg.version,
      bin: pkg.bin,
      dependencies: pkg.dependencies,
      devDependencies: pkg.devDependencies,
      engines: pkg.engines,
    },
  };
  return { ...lock, name: pkg.name, version: pkg.version, packages };
}

/** Unit tests on an in-memory store: no database, no service. */
export function vitestConfig(): string {
  return `import { generateKeyPairSync, randomBytes } from "node:crypto";
import { devNull } from "node:os";
import { defineConfig } from "vitest/config";

// Handlers log warnings and errors only, and write their metric lines nowhere.
process.env.LOG_LEVEL ??= "warn";
process.env.METRICS_FILE ??= devNull;
// Outside serverless offline nothing falls back to a built-in secret: tests bring their own.
process.env.APP_SECRET ??= randomBytes(48).toString("base64url");
process.env.AUTH_SIGNING_KEY ??= JSON.stringify(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }));

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "app/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
`;
}

export function readme(name: string): string {
  return `# ${name}

A model-driven service for AWS serverless: REST, GraphQL, WebSocket subscriptions and
authentication, derived from the models in \`app/models/\`.

## Run it

    npm ci && npm start

\`npm start\` serves everything on this machine (no AWS account): the API on
http://127.0.0.1:3000 (REST, \`/graphql\`, \`/graphiql\`), subscriptions on ws://127.0.0.1:3001,
DynamoDB Local, and mails written to \`.data/outbox/\`. It seeds \`app/seed/data.ts\` and prints
the demo users. Node 22.15 or later and Java (for DynamoDB Local) are needed.

## Test it

    npm ci && npm test

\`npm run typecheck\` and \`npm run lint\` check the rest.

## Your models

\`app/models/note.ts\` is the example: a JSON Schema, relations and a permission rule
(\`canAct\`). Add a model as a file in \`app/models/\` and a line in \`app/models/index.ts\`;
\`npm start\` reloads it, and \`npm run build\` renders \`schema-cache/\` (routes, GraphQL schema,
tables, OpenAPI), which is committed and which packaging checks. \`app/definition.ts\` configures
the services (GraphQL, authentication, the mailer's sender address).

## Layout

| folder | what |
| --- | --- |
| \`app/\` | the application: models, seed, definition |
| \`test/\` | the application's tests |
| \`lib/\`, \`functions/\`, \`bin/\`, \`scripts/\` | the framework, the Lambda functions, the \`webda\` command, \`npm start\` |
| \`serverless.yml\` | the service (its name: package.json \`webda.project\`) |

## Deploy

\`npx serverless deploy --stage prod\` with the deploy parameters the framework's
docs/deploying.md lists (the signing key: \`npx webda keygen\`; its public set:
\`npx webda keygen --public\`).
`;
}
