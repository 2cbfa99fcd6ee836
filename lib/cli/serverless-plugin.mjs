// A local serverless plugin: refuses to package from a stale schema-cache/ and warns when the
// CloudFormation template nears the 500-resources-per-stack limit. Plain JS because the
// Serverless CLI loads plugins itself; the check runs the TypeScript CLI through tsx.
import { spawnSync } from "node:child_process";

const LIMIT = 500;
const WARN_AT = 400;

export default class SchemaCachePlugin {
  constructor(serverless, _options, { log } = {}) {
    this.serverless = serverless;
    this.log = log ?? { warning: (m) => console.warn(m), notice: (m) => console.log(m) };
    this.hooks = {
      "before:package:initialize": () => {
        this.checkCache();
        this.checkSecret();
        this.checkSigningKey();
      },
      "before:package:finalize": () => this.countResources(),
    };
  }

  checkCache() {
    if (process.env.SKIP_SCHEMA_CACHE_CHECK === "true") return;
    const result = spawnSync(process.execPath, ["--import", "tsx", "lib/cli/main.ts", "check"], {
      cwd: this.serverless.serviceDir,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      const message = (result.stderr || result.stdout || "schema-cache check failed").trim();
      throw new this.serverless.classes.Error(message);
    }
  }

  /** A deployed stage must seal continuation tokens with its own secret, never a default. */
  checkSecret() {
    const stage = this.serverless.service.provider.stage;
    const secret = this.serverless.service.provider.environment?.APP_SECRET;
    if (stage === "local" || process.env.IS_OFFLINE === "true") return;
    if (!secret || secret === "unset" || String(secret).length < 32) {
      throw new this.serverless.classes.Error(
        `Stage '${stage}' needs an application secret of at least 32 characters: --param appSecret=$(openssl rand -base64 48)`,
      );
    }
  }

  /** Access tokens are signed with the stage's own Ed25519 key, never one generated on the fly. */
  checkSigningKey() {
    const stage = this.serverless.service.provider.stage;
    if (stage === "local" || process.env.IS_OFFLINE === "true") return;
    const raw = this.serverless.service.provider.environment?.AUTH_SIGNING_KEY;
    let keys;
    try {
      const parsed = typeof raw === "string" ? JSON.parse(raw) : raw;
      keys = Array.isArray(parsed?.keys) ? parsed.keys : [parsed];
    } catch {
      keys = [];
    }
    const valid = keys.length > 0 && keys.every((k) => k && k.kty === "OKP" && k.crv === "Ed25519" && typeof k.d === "string" && typeof k.x === "string");
    if (!raw || raw === "unset" || !valid) {
      throw new this.serverless.classes.Error(
        `Stage '${stage}' needs an access-token signing key (an Ed25519 private JWK): --param authSigningKey="$(npx webda keygen)"`,
      );
    }
  }

  countResources() {
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    const count = Object.keys(template?.Resources ?? {}).length;
    if (count >= LIMIT) {
      throw new this.serverless.classes.Error(
        `The stack has ${count} CloudFormation resources (limit ${LIMIT}): set rest.packaging to "model" or "single" in the application definition and run \`npm run build\`.`,
      );
    }
    if (count >= WARN_AT) {
      this.log.warning(`The stack has ${count} of ${LIMIT} CloudFormation resources: consider rest.packaging "model" or "single".`);
    }
  }
}
