import type { Repository, RepositoryFactory } from "./repository.ts";
import type { Capability, Provided } from "./capability.ts";
import { resolveServices, type OptionsCheck, type ServiceConfig, ConfigurationError } from "./config.ts";
import { ContinuationSealer } from "./continuation.ts";
import { isLocalOffline, localSecret } from "./local-secret.ts";
import type { IdentityPort } from "./identity.ts";
import type { Listing } from "./listing.ts";
import { NO_SECRETS, secretOrigin, secretValue, type LoadedSecrets } from "./secrets/values.ts";
import type { SecretName } from "./secrets/names.ts";
import type { Validation } from "./validation.ts";
import { Domain } from "./domain.ts";
import { EventBus } from "./events.ts";
import type { ModelClass } from "./model.ts";
import { describeModel, modelPlural, type ModelInfo, type TableShape } from "./model-info.ts";
import { operationsOf, type OperationDefinition } from "./operation.ts";
import { UpgradingRepository } from "./upgrading-repository.ts";
import type { Service, ServiceClass } from "./service.ts";

export interface ApplicationDefinition {
  name: string;
  version: string;
  models: ModelClass[];
  /** Service classes the configuration may name by `type` (framework ones included). */
  serviceTypes: ServiceClass[];
  services: Record<string, ServiceConfig>;
  rest?: RestOptions;
}

export interface RestOptions {
  /**
   * How derived routes map to Lambda functions: one per route (default), one per model or
   * service, or one for all. Any size of application may keep one per route: packaging splits
   * the template into nested stacks by model past CloudFormation's limit (docs/deploying.md);
   * grouping gives fewer cold starts to pay and fewer functions to watch.
   */
  packaging?: "route" | "model" | "single";
  /** Origins allowed by CORS (API Gateway answers preflights); none by default. */
  corsOrigins?: string[];
}

/**
 * What an application is built with besides its definition: each part is held by the application
 * it builds, never by a module. A Lambda function states its parts in one composition call
 * (lib/core/compose.ts and the faces' `*Function`); what runs in-process (the CLI, `npm start`'s
 * tools, the tests) passes its own. A part left out is refused by name when first needed.
 */
export interface ApplicationParts {
  /** Where records live (DynamoDB, memory, files); `useStore` may choose it later. */
  store?: RepositoryFactory;
  /** How writes and operation parameters are validated (lib/core/validation.ts). */
  validation?: Validation;
  /** How the domain lists (lib/core/list.ts's `domainListing`); a key-only function has none. */
  listing?: Listing;
  /** Checks service options at build (lib/core/config-check.ts): from source, not in Lambda. */
  checkOptions?: OptionsCheck;
  /** What a Lambda function read from the secret store at cold start (./secrets/load.ts). */
  secrets?: LoadedSecrets;
  /** The upper layers' capabilities (OpenID client, mail transport, password verifiers...). */
  capabilities?: readonly Provided<unknown>[];
}

export interface ServiceEntry {
  name: string;
  service: Service<unknown>;
  operations: OperationDefinition[];
}

/**
 * Skip non-final models: a class another registered class extends is a base shadowed by the
 * application's subclass, and only the most derived class is served.
 */
export function finalModels(models: readonly ModelClass[]): ModelClass[] {
  const unique = [...new Set(models)];
  return unique.filter((candidate) => !unique.some((other) => other !== candidate && Object.prototype.isPrototypeOf.call(candidate, other)));
}

export class Application {
  readonly events = new EventBus();
  readonly domain: Domain;
  /** The served model classes by name and by plural; each is described on first use (describeModel caches). */
  private readonly byName = new Map<string, ModelClass>();
  private readonly byPlural = new Map<string, ModelClass>();
  private readonly serviceEntries = new Map<string, ServiceEntry>();
  private readonly repositories = new Map<string, Repository>();
  /** What the store gave, undecorated: a memory store's data lives in this object, so it is kept. */
  private readonly stores = new Map<string, Repository>();
  private factory: RepositoryFactory | undefined;
  private readonly decorators = new Map<string, (repository: Repository) => Repository>();
  private sealerInstance: ContinuationSealer | undefined;
  private identityPort: IdentityPort | undefined;
  private readonly validationPart: Validation | undefined;
  private readonly listingPart: Listing | undefined;
  private readonly capabilities: ReadonlyMap<Capability<unknown>, unknown>;
  /** The secret store's values this application was composed with (a Lambda runtime's only source). */
  readonly secrets: LoadedSecrets;

  constructor(
    readonly definition: ApplicationDefinition,
    parts: ApplicationParts = {},
  ) {
    this.validationPart = parts.validation;
    this.listingPart = parts.listing;
    this.secrets = parts.secrets ?? NO_SECRETS;
    this.capabilities = new Map((parts.capabilities ?? []).map((p) => [p.capability as Capability<unknown>, p.value]));
    if (parts.store) this.factory = parts.store;
    for (const cls of finalModels(definition.models)) {
      const plural = modelPlural(cls);
      const clash = this.byPlural.get(plural) ?? this.byName.get(cls.name);
      if (clash) throw new ConfigurationError(`models ${clash.name} and ${cls.name} share the name or route segment '${plural}'`);
      this.byName.set(cls.name, cls);
      this.byPlural.set(plural, cls);
    }
    // Where configuration is checked, a bad model declaration stops the start like a bad option. A
    // Lambda function's models were checked when it was packaged: it describes (derives schemas,
    // relations, table shape of) only the models its requests use, when they first use them.
    if (parts.checkOptions) this.models();
    for (const { name, cls, options } of resolveServices(definition.services, definition.serviceTypes, parts.checkOptions)) {
      const service = new cls(name, options as never);
      service.app = this;
      this.serviceEntries.set(name.toLowerCase(), { name, service, operations: operationsOf(cls) });
    }
    for (const { service } of this.serviceEntries.values()) service.attached();
    this.domain = new Domain({
      repository: (info) => this.repository(info),
      sealer: () => this.sealer(),
      events: this.events,
      model: (name) => this.model(name),
      validation: () => this.validation(),
      listing: () => this.listing(),
    });
  }

  /** How this application validates input; refused by name when it was composed without. */
  validation(): Validation {
    if (!this.validationPart)
      throw new ConfigurationError("this application was composed without validators: give its composition `validators` (schema-cache/validators.mjs)");
    return this.validationPart;
  }

  /** Whether this application lists (a key-only function's does not). */
  get lists(): boolean {
    return this.listingPart !== undefined;
  }

  listing(): Listing {
    if (!this.listingPart)
      throw new ConfigurationError(
        "this application was composed without the listing: it reads by key only (a function that lists is composed with `listing: domainListing`)",
      );
    return this.listingPart;
  }

  /** An upper layer's capability, undefined when this application was composed without it. */
  capability<T>(capability: Capability<T>): T | undefined {
    return this.capabilities.get(capability as Capability<unknown>) as T | undefined;
  }

  /** An upper layer's capability, refused by name when missing (a service asks when it attaches: at cold start). */
  requireCapability<T>(capability: Capability<T>): T {
    if (!this.capabilities.has(capability as Capability<unknown>))
      throw new ConfigurationError(`this application was composed without the ${capability.name}: ${capability.hint}`);
    return this.capabilities.get(capability as Capability<unknown>) as T;
  }

  /**
   * Who is calling: the identity port the authentication service gives when it attaches (the
   * first one configured answers); undefined without one (everyone is anonymous).
   */
  useIdentity(port: IdentityPort): void {
    this.identityPort ??= port;
  }

  identity(): IdentityPort | undefined {
    return this.identityPort;
  }

  /** A secret's value from the secret store this application was composed with, or the environment (./secrets/values.ts). */
  secretValue(name: SecretName, env: NodeJS.ProcessEnv = process.env): string | undefined {
    return secretValue(name, env, this.secrets);
  }

  get name(): string {
    return this.definition.name;
  }

  get version(): string {
    return this.definition.version;
  }

  models(): ModelInfo[] {
    return [...this.byName.values()].map(describeModel);
  }

  /** The served model classes, undescribed: what a function that uses one or two models looks through. */
  modelClasses(): ModelClass[] {
    return [...this.byName.values()];
  }

  model(name: string): ModelInfo | undefined {
    const cls = this.byName.get(name);
    return cls && describeModel(cls);
  }

  modelByPlural(plural: string): ModelInfo | undefined {
    const cls = this.byPlural.get(plural.toLowerCase());
    return cls && describeModel(cls);
  }

  services(): ServiceEntry[] {
    return [...this.serviceEntries.values()];
  }

  service(name: string): ServiceEntry | undefined {
    return this.serviceEntries.get(name.toLowerCase());
  }

  /** Chooses where records live (DynamoDB, memory, files); set once at startup by the host. */
  useStore(factory: RepositoryFactory): this {
    this.factory = factory;
    this.repositories.clear();
    this.stores.clear();
    return this;
  }

  repository(info: ModelInfo): Repository {
    let repository = this.repositories.get(info.name);
    if (!repository) {
      if (!this.factory) throw new Error("no store configured: call app.useStore() at startup");
      let stored = this.stores.get(info.name);
      if (!stored) {
        stored = this.factory(info.name, info.table);
        this.stores.set(info.name, stored);
      }
      repository = this.decorators.get(info.name)?.(stored) ?? stored;
      // Records stored in an older shape are served, filtered and rewritten as current.
      if (info.upgrade.active) repository = new UpgradingRepository(repository, info.upgrade);
      this.repositories.set(info.name, repository);
    }
    return repository;
  }

  /**
   * Wraps a model's repository from now on (v3 compatibility maps legacy user rows as they load).
   * Applied to the repository the store gives, whichever store it is.
   */
  decorateRepository(model: string, decorate: (repository: Repository) => Repository): void {
    this.decorators.set(model, decorate);
    // Re-wrapped on next use around the same store: a memory store created earlier keeps its records.
    this.repositories.delete(model);
  }

  /**
   * A table of the framework's own (auth sessions, idents) in the same store as the models, named
   * `${prefix}<name>` like theirs.
   */
  tableRepository(name: string, shape: TableShape): Repository {
    let repository = this.repositories.get(name);
    if (!repository) {
      if (!this.factory) throw new Error("no store configured: call app.useStore() at startup");
      repository = this.factory(name, shape);
      this.repositories.set(name, repository);
    }
    return repository;
  }

  /**
   * The application secret (`APP_SECRET`): it seals continuation tokens and keys what the auth
   * service derives from it. Only `serverless offline` may do without one, and then it uses a
   * secret generated once under `.data/`, never a constant in the code.
   */
  secret(env: NodeJS.ProcessEnv = process.env): string {
    return applicationSecret(env, this.secrets);
  }

  /** Continuation tokens are sealed with the application secret. */
  sealer(): ContinuationSealer {
    this.sealerInstance ??= new ContinuationSealer(this.secret());
    return this.sealerInstance;
  }
}

/** A Lambda runtime reads it from the secret store at cold start (./secrets/), never from its environment. */
export function applicationSecret(env: NodeJS.ProcessEnv = process.env, loaded: LoadedSecrets = NO_SECRETS): string {
  const secret = secretValue("APP_SECRET", env, loaded);
  if (secret) return secret;
  if (isLocalOffline(env)) return localSecret("app-secret", undefined, env);
  throw new ConfigurationError(
    `APP_SECRET is not set: it seals continuation tokens and keys auth secrets, and must be a long random string, from ${secretOrigin("APP_SECRET", env)}`,
  );
}
