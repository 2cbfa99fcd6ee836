import type { Application, ApplicationParts } from "./application.ts";
import type { Provided } from "./capability.ts";
import { ConfigurationError } from "./config.ts";
import type { Listing } from "./listing.ts";
import type { RepositoryFactory } from "./repository.ts";
import type { LoadedSecrets } from "./secrets/values.ts";
import { Validation, type Validator } from "./validation.ts";

/**
 * What a Lambda function is made of, as its file in functions/ states it in one call (the faces'
 * `restFunction`, `graphqlFunction`, `authFunction`, ...). Each part is given to the application
 * it builds; none is held by a module.
 */
export interface FunctionParts {
  /** Builds the application from its parts (app/definition.ts's builders). */
  app: (parts: ApplicationParts) => Application;
  /** Reads this function's secrets at cold start (lib/core/secrets/load.ts's `loadSecrets`). */
  secrets?: () => Promise<LoadedSecrets>;
  /** Chooses where records live (lib/store's `storeFromEnv`, or `recordStoreFromEnv` for a key-only function). */
  store?: () => RepositoryFactory;
  /** The validators `npm run build` compiled (schema-cache/validators.mjs). */
  validators?: Readonly<Record<string, Validator>>;
  /** How the domain lists (lib/core/list.ts's `domainListing`); a key-only function has none. */
  listing?: Listing;
}

export type PartName = "secrets" | "store" | "validators" | "listing";

/** The parts a kind of function needs, required by its type: leaving one out is a type error. */
export type Composed<Needs extends PartName> = FunctionParts & Required<Pick<FunctionParts, Needs>>;

const DESCRIBED: Record<PartName, string> = {
  secrets: "its secrets (`secrets: loadSecrets`)",
  store: "a store (`store: storeFromEnv`)",
  validators: "the validators (`validators` from schema-cache/validators.mjs)",
  listing: "the listing (`listing: domainListing`)",
};

/**
 * Refuses at cold start, naming each one, the parts a function needs and was not given (a caller
 * the types did not check: JavaScript, a cast). `described` names each part as its composition
 * call spells it.
 */
export function requireParts(kind: string, given: object, needs: readonly string[], described: Readonly<Record<string, string>> = DESCRIBED): void {
  const missing = needs.filter((name) => (given as Record<string, unknown>)[name] === undefined);
  if (missing.length === 0) return;
  throw new ConfigurationError(`the ${kind} function is composed without ${missing.map((name) => described[name] ?? `\`${name}\``).join(", ")}, which it uses`);
}

/**
 * The application of one function: its secrets read first (once per cold start), then built with
 * its store, validators, listing and the upper layers' capabilities. Module scope runs this once
 * per cold start; every request the instance serves shares what it built.
 */
export async function composeApplication(
  kind: string,
  parts: FunctionParts,
  needs: readonly PartName[],
  capabilities: readonly Provided<unknown>[] = [],
): Promise<Application> {
  requireParts(kind, parts, needs);
  const built: ApplicationParts = { capabilities };
  if (parts.secrets) built.secrets = await parts.secrets();
  if (parts.store) built.store = parts.store();
  if (parts.validators) built.validation = new Validation(parts.validators);
  if (parts.listing) built.listing = parts.listing;
  return parts.app(built);
}
