import {
  createSourceEventStream,
  getOperationAST,
  GraphQLError,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from "graphql";
import type { SubscribePayload } from "graphql-ws";
import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { KeyValues } from "../core/records.ts";
import { printExpression } from "../query/index.ts";
import { graphqlContext } from "../graphql/context.ts";
import type { DocumentCache } from "../graphql/documents.ts";
import { formatError } from "../graphql/errors.ts";
import { pluralName } from "../graphql/names.ts";
import type { SubscriptionKind } from "./store.ts";
import { modelTopic, recordTopic } from "./topics.ts";

export interface SubscriptionTarget {
  info: ModelInfo;
  kind: SubscriptionKind;
}

/** Subscription root fields by name: `<Model>` watches one record, `<Models>` a filtered model. */
export function subscriptionTargets(app: Application): Map<string, SubscriptionTarget> {
  const targets = new Map<string, SubscriptionTarget>();
  for (const info of app.models()) {
    targets.set(info.name, { info, kind: "record" });
    targets.set(pluralName(info), { info, kind: "list" });
  }
  return targets;
}

export interface PlannedSubscription {
  field: string;
  kind: SubscriptionKind;
  model: string;
  topic: string;
  /** The filter in canonical form (printed from its syntax tree). */
  filter?: string;
  key?: KeyValues;
}

export type PlanResult = { ok: true; plan: PlannedSubscription } | { ok: false; errors: GraphQLFormattedError[] };

const NEVER: AsyncIterable<never> = {
  [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }),
};

function failure(message: string, code: string): PlanResult {
  return { ok: false, errors: [{ message, extensions: { code } }] };
}

/**
 * Checks a `subscribe` message as graphql-ws's server would (parse, validate, one operation,
 * a subscription) and then what only this service knows: which model and topic the root field
 * listens on, that a filter parses and names the model's fields and values of their types, and
 * that the filter names only fields the subscriber may read (a watched key is never looked up:
 * whether it exists or is readable would answer differently for a hidden record and a missing one;
 * every delivery is checked instead). The root field and its
 * coerced arguments come from graphql's own `createSourceEventStream`, so fragments, aliases,
 * directives and variable coercion behave exactly as in graphql-js.
 */
export class SubscriptionPlanner {
  private readonly targets: Map<string, SubscriptionTarget>;

  constructor(
    private readonly app: Application,
    private readonly schema: GraphQLSchema,
    private readonly documents: DocumentCache,
  ) {
    this.targets = subscriptionTargets(app);
  }

  async plan(ctx: Context, payload: SubscribePayload, limits: { maxFilterLength?: number } = {}): Promise<PlanResult> {
    let document: DocumentNode;
    try {
      document = this.documents.parse(payload.query);
    } catch (error) {
      if (error instanceof GraphQLError) return { ok: false, errors: [error.toJSON()] };
      throw error;
    }
    const invalid = this.documents.validate(this.schema, document);
    if (invalid.length > 0) return { ok: false, errors: invalid.map((e) => e.toJSON()) };
    const operation = getOperationAST(document, payload.operationName ?? undefined);
    if (!operation) return failure("Unable to identify operation", "BAD_USER_INPUT");
    if (operation.operation !== "subscription") {
      return failure(`Only subscriptions are served over this WebSocket; send a ${operation.operation} to POST /graphql`, "OPERATION_NOT_SUPPORTED");
    }
    let planned: PlannedSubscription | undefined;
    const capture: GraphQLFieldResolver<unknown, unknown> = async (_root, args: Record<string, unknown>, _context, info) => {
      planned = await this.target(ctx, info.fieldName, args, limits.maxFilterLength ?? Number.POSITIVE_INFINITY);
      return NEVER;
    };
    const result = await createSourceEventStream({
      schema: this.schema,
      document,
      variableValues: payload.variables ?? {},
      operationName: payload.operationName ?? null,
      contextValue: graphqlContext(this.app, ctx),
      subscribeFieldResolver: capture,
    });
    if ("errors" in result && result.errors) return { ok: false, errors: result.errors.map((e) => formatError(e, ctx.requestId).toJSON()) };
    if (!planned) return failure("The subscription names no field", "BAD_USER_INPUT");
    return { ok: true, plan: planned };
  }

  private async target(ctx: Context, field: string, args: Record<string, unknown>, maxFilterLength: number): Promise<PlannedSubscription> {
    const target = this.targets.get(field);
    if (!target) throw new GraphQLError(`Subscription field '${field}' has no event source`, { extensions: { code: "BAD_USER_INPUT" } });
    const { info, kind } = target;
    if (kind === "list") {
      const text = typeof args.query === "string" ? args.query : "";
      if (text.length > maxFilterLength) {
        throw new GraphQLError(`The filter is ${text.length} characters long; at most ${maxFilterLength} are allowed`, {
          extensions: { code: "FILTER_TOO_LONG", limit: maxFilterLength, actual: text.length },
        });
      }
      const expression = this.app.domain.checkedFilter(ctx, info, text);
      return { field, kind, model: info.name, topic: modelTopic(info.name), ...(expression ? { filter: printExpression(expression) } : {}) };
    }
    const key = this.app.domain.watchableKey(info, args);
    return { field, kind, model: info.name, topic: recordTopic(info, key), key };
  }
}
