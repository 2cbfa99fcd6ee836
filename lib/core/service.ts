import type { TObject } from "@sinclair/typebox";
import type { Application } from "./application.ts";
import type { Context } from "./context.ts";
import type { Decision } from "./model.ts";

/**
 * A service bean: configured under a name in the application configuration by its `type`, with
 * options checked against its `options` schema when the application starts. Its operations are
 * exposed like model operations; its `canAct` denies by default.
 */
export class Service<Options = Record<string, unknown>> {
  /** The configuration `type`; matched case-insensitively, with or without a namespace. */
  static readonly type: string = "Service";
  static readonly options: TObject | undefined = undefined;
  /**
   * The models this service's operations read or write (through `app.domain`), by name: the IAM
   * role of its functions is granted their tables and no other (docs/deploying.md, "Roles"). Left
   * undefined, the role is granted every model's table, since the code may reach any of them.
   */
  static readonly models: readonly string[] | undefined = undefined;

  /**
   * Problems the options schema cannot word well (a removed option and what replaces it), checked
   * before the schema; one line each, naming the option.
   */
  static optionProblems(_given: Record<string, unknown>): string[] {
    return [];
  }

  /** Set by the application right after construction, before any operation runs. */
  app!: Application;

  constructor(
    readonly name: string,
    readonly options: Options,
  ) {}

  /**
   * Called once `app` is set, while the application is being built and before any request: where a
   * service installs what must hold from the first request on (a repository decorator, say).
   */
  attached(): void {}

  canAct(_ctx: Context, _operation: string): Decision {
    return "no policy declared";
  }
}

export type ServiceClass = (new (name: string, options: never) => Service<unknown>) & {
  readonly type: string;
  readonly options: TObject | undefined;
  optionProblems?(given: Record<string, unknown>): string[];
};

/** `Framework/GraphQLService`, `Webda/GraphQLService` and `GraphQLService` name the same type. */
export function normalizeTypeName(type: string): string {
  return type.slice(type.lastIndexOf("/") + 1).toLowerCase();
}
