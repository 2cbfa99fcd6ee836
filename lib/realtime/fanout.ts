import { execute, type GraphQLFormattedError, type GraphQLSchema } from "graphql";
import { MessageType, stringifyMessage } from "graphql-ws";
import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import type { LifecycleEvent, LifecycleKind } from "../core/events.ts";
import { errorFields, log } from "../core/log.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { evaluate, parseFilter, type Expression } from "../query/index.ts";
import { graphqlContext } from "../graphql/context.ts";
import type { DocumentCache } from "../graphql/documents.ts";
import { formatError } from "../graphql/errors.ts";
import { camel } from "../graphql/names.ts";
import type { RealtimeOptions } from "./options.ts";
import { forEachBounded, sleep, withTimeout } from "./pool.ts";
import type { RealtimeStore, SubscriptionRow } from "./store.ts";
import { modelTopic, recordTopic } from "./topics.ts";
import { classifyPostError, type PostFailure, type Target, type Transport } from "./transport.ts";

export interface FanoutDeps {
  app: Application;
  schema: GraphQLSchema;
  documents: DocumentCache;
  store: RealtimeStore;
  transport: Transport;
  options: RealtimeOptions;
  /** The sessions among these that were revoked (recovery, password change): their connections stop. */
  revokedSessions?: (sessionIds: string[]) => Promise<Set<string>>;
  now?: () => number;
}

export interface DeliveryReport {
  subscriptions: number;
  /** GraphQL executions: one per group of identical subscriptions, not one per subscriber. */
  executions: number;
  delivered: number;
  gone: number;
  failed: number;
  timedOut: number;
  retries: number;
}

/** The `type` of a `<Model>Event`: a patch is an update to the subscriber. */
export const EVENT_TYPES: Record<LifecycleKind, string> = { Created: "CREATED", Updated: "UPDATED", Patched: "UPDATED", Deleted: "DELETED" };

type Result = { data?: Record<string, unknown> | null; errors?: GraphQLFormattedError[] };
type PostOutcome = "ok" | "timeout" | PostFailure;

/**
 * Delivers one lifecycle event to the subscriptions it concerns: one Query of the topic index,
 * one GraphQL execution per group of subscriptions with the same document, variables and user
 * (the read check and the redaction are the subscriber's), then posts with bounded concurrency,
 * each under its own timeout, retrying throttling with backoff and removing gone connections.
 */
export class Fanout {
  private readonly filters = new Map<string, Expression | undefined>();

  constructor(private readonly deps: FanoutDeps) {}

  async deliver(event: LifecycleEvent): Promise<DeliveryReport> {
    const report: DeliveryReport = { subscriptions: 0, executions: 0, delivered: 0, gone: 0, failed: 0, timedOut: 0, retries: 0 };
    const info = this.deps.app.model(event.model);
    if (!info) return report;
    const found = await this.deps.store.subscriptionsFor([modelTopic(info.name), recordTopic(info, event.key)]);
    report.subscriptions = found.length;
    const ended = await this.endedConnections(found);
    const rows = found.filter((row) => !ended.has(row.connectionId));
    const groups = new Map<string, SubscriptionRow[]>();
    for (const row of rows) groups.set(row.group, [...(groups.get(row.group) ?? []), row]);

    const messages: { target: Target; data: string }[] = [];
    await forEachBounded([...groups.values()], this.deps.options.concurrency, async (members) => {
      const first = members[0];
      if (!first) return;
      let result: Result | undefined;
      try {
        result = await this.execute(info, event, first);
      } catch (error) {
        log.error("subscription execution failed", { event: event.name, subscription: first.id, ...errorFields(error) });
        report.failed += members.length;
        return;
      }
      if (result === undefined) return;
      report.executions++;
      for (const row of members) messages.push({ target: row, data: stringifyMessage({ id: row.id, type: MessageType.Next, payload: result }) });
    });

    const gone = new Set<string>();
    await forEachBounded(messages, this.deps.options.concurrency, async ({ target, data }) => {
      const outcome = await this.post(target, data, report);
      if (outcome === "ok") report.delivered++;
      else if (outcome === "gone") gone.add(target.connectionId);
      else {
        if (outcome === "timeout") report.timedOut++;
        else report.failed++;
        log.warn("subscription post failed", { event: event.name, connectionId: target.connectionId, outcome });
      }
    });
    await forEachBounded([...ended.values()], this.deps.options.concurrency, (target) => this.stop(target));
    report.gone = gone.size;
    await forEachBounded([...gone], this.deps.options.concurrency, async (connectionId) => {
      await this.deps.store.removeConnection(connectionId).catch((error: unknown) =>
        log.warn("could not remove a gone connection", { connectionId, ...errorFields(error) }),
      );
    });
    return report;
  }

  /** Connections whose access token has expired or whose session was revoked, by id. */
  private async endedConnections(rows: SubscriptionRow[]): Promise<Map<string, SubscriptionRow>> {
    const ended = new Map<string, SubscriptionRow>();
    const nowS = Math.floor((this.deps.now?.() ?? Date.now()) / 1000);
    for (const row of rows) if (row.authExpiresAt !== undefined && row.authExpiresAt <= nowS) ended.set(row.connectionId, row);
    const sessions = [...new Set(rows.flatMap((r) => (r.sessionId && !ended.has(r.connectionId) ? [r.sessionId] : [])))];
    if (sessions.length > 0 && this.deps.revokedSessions) {
      const revoked = await this.deps.revokedSessions(sessions);
      for (const row of rows) if (row.sessionId && revoked.has(row.sessionId)) ended.set(row.connectionId, row);
    }
    return ended;
  }

  /**
   * API Gateway cannot close a socket with a code (graphql-ws would use 4401/4403): each of the
   * connection's subscriptions gets an `error`, then the connection is deleted.
   */
  private async stop(target: SubscriptionRow): Promise<void> {
    const error = [{ message: "The credential of this connection has expired or was revoked: reconnect with a new access token", extensions: { code: "UNAUTHENTICATED" } }];
    try {
      const subscriptions = await this.deps.store.subscriptionsOf(target.connectionId);
      for (const row of subscriptions) await this.deps.transport.post(row, stringifyMessage({ id: row.id, type: MessageType.Error, payload: error }));
      await this.deps.transport.disconnect(target);
    } catch (failure) {
      log.warn("could not stop a connection whose credential ended", { connectionId: target.connectionId, ...errorFields(failure) });
    }
    await this.deps.store.removeConnection(target.connectionId).catch(() => undefined);
  }

  /** Undefined when this subscriber must not hear of the event (unreadable, or outside its filter). */
  private async execute(info: ModelInfo, event: LifecycleEvent, row: SubscriptionRow): Promise<Result | undefined> {
    const ctx = new Context({ requestId: `${event.name}:${row.group}`, ...(row.userId ? { userId: row.userId } : {}) });
    const output = this.deps.app.domain.view(ctx, info, event.record);
    if (output === undefined) return undefined;
    let value: unknown;
    if (row.kind === "list") {
      const filter = this.filter(row.filter);
      if (filter && !evaluate(filter, output)) return undefined;
      value = { type: EVENT_TYPES[event.kind], key: event.key, [camel(info.name)]: output };
    } else {
      value = event.kind === "Deleted" ? null : output;
    }
    const { schema, documents, app } = this.deps;
    const result = await execute({
      schema,
      document: documents.parse(row.query),
      rootValue: rootValueFor(schema, row.field, value),
      contextValue: graphqlContext(app, ctx),
      variableValues: row.variables ?? {},
      operationName: row.operationName ?? null,
    });
    return {
      ...(result.data !== undefined ? { data: result.data } : {}),
      ...(result.errors ? { errors: result.errors.map((e) => formatError(e, ctx.requestId).toJSON()) } : {}),
    };
  }

  private filter(text: string | undefined): Expression | undefined {
    if (!text) return undefined;
    if (!this.filters.has(text)) this.filters.set(text, parseFilter(text));
    return this.filters.get(text);
  }

  private async post(target: Target, data: string, report: DeliveryReport): Promise<PostOutcome> {
    const { postAttempts, postTimeoutMs, retryBaseMs } = this.deps.options;
    for (let attempt = 1; ; attempt++) {
      const abort = new AbortController();
      const attemptPost = this.deps.transport.post(target, data, abort.signal).then(
        (): PostOutcome => "ok",
        (error: unknown): PostOutcome => classifyPostError(error),
      );
      const outcome = await withTimeout(attemptPost, postTimeoutMs, (): PostOutcome => {
        abort.abort();
        return "timeout";
      });
      if (outcome !== "throttled" || attempt >= postAttempts) return outcome;
      report.retries++;
      const ceiling = retryBaseMs * 2 ** (attempt - 1);
      await sleep(ceiling / 2 + Math.random() * (ceiling / 2));
    }
  }
}

/**
 * The executed root field must resolve to `value`: a field with its own resolver is handed the
 * payload as the root (graphql's subscribe convention); the default resolver reads it by name.
 */
export function rootValueFor(schema: GraphQLSchema, field: string, value: unknown): unknown {
  const definition = schema.getSubscriptionType()?.getFields()[field];
  return definition?.resolve ? value : { [field]: value };
}
