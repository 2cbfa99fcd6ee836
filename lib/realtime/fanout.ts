import { execute, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from "graphql";
import { MessageType, stringifyMessage } from "graphql-ws";
import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import type { LifecycleEvent, LifecycleKind } from "../core/events.ts";
import { errorFields, log } from "../core/log.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { evaluate, evaluationCost, parseFilter, type Expression } from "../query/index.ts";
import { graphqlContext } from "../graphql/context.ts";
import type { DocumentCache } from "../graphql/documents.ts";
import { formatError } from "../graphql/errors.ts";
import { camel } from "../graphql/names.ts";
import type { RealtimeOptions } from "./options.ts";
import { Deadlines } from "./deadlines.ts";
import { dropped, emptyReport, LATE_DELIVERY_MS, type DeliveryReport } from "./delivery-report.ts";
import { forEachBounded } from "../core/concurrency.ts";
import { drainBounded, Outbox, sleep } from "./pool.ts";
import { plainValueKey, readsOnlyThePayload } from "./shared-execution.ts";
import type { RealtimeStore, SubscriptionRow } from "./store.ts";
import { documentKey, modelTopic, recordTopic } from "./topics.ts";
import { classifyPostError, type PostFailure, type Target, type Transport } from "./transport.ts";

/** Parsed subscription filters an instance keeps (each a small AST); more are parsed again. */
export const PARSED_FILTERS_KEPT = 1_000;

/**
 * Matcher steps (query/cost.ts) above which a subscription's filter is costly for an event: costly
 * groups are matched after every other group of the event has its frames queued, one at a time,
 * so a costly filter delays its own subscription and never the others'.
 */
export const COSTLY_FILTER_STEPS = 100_000;

/**
 * The matching budget of one subscription for one event, in the same steps (about ten
 * milliseconds of matching): a filter whose matching this event's record (and its previous state)
 * would cost more is not run. Its subscribers get, for this event only, a `next` whose payload is
 * the error `FILTER_TOO_COSTLY` (if they may read the record, else nothing); the subscription
 * stays, and every other subscriber's delivery is unaffected.
 */
export const MAX_FILTER_STEPS_PER_EVENT = 1_000_000;

/** The payload of that `next`: an execution result without data, as for a field that failed. */
/** Stored filters were checked against their model's width limits when subscribed. */
const ADMITTED = { terms: Infinity, orBranches: Infinity, inValues: Infinity };

const TOO_COSTLY = JSON.stringify({
  data: null,
  errors: [
    {
      message: `This subscription's filter would cost more than ${MAX_FILTER_STEPS_PER_EVENT} matching steps on this record: it was not matched`,
      extensions: { code: "FILTER_TOO_COSTLY" },
    },
  ],
});

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

/** The `type` of a `<Model>Event`: a patch is an update to the subscriber. */
export const EVENT_TYPES: Record<LifecycleKind, string> = { Created: "CREATED", Updated: "UPDATED", Patched: "UPDATED", Deleted: "DELETED" };

/**
 * The `type` of the one event a list subscriber gets when a record it was shown leaves its sight:
 * the change made it stop matching the filter, or unreadable to the subscriber. The record field
 * is null (its new state may not be the subscriber's to see); nothing follows for that record
 * until it matches again.
 */
export const LEFT_TYPE = "LEFT";

type Result = { data?: Record<string, unknown> | null; errors?: GraphQLFormattedError[] };
type PostOutcome = "ok" | "timeout" | PostFailure;

interface Message {
  target: Target;
  data: string;
}

/** A `next` frame as graphql-ws's stringifyMessage writes it, around a payload serialised once. */
export function nextFrame(id: string, payload: string): string {
  return `{"id":${JSON.stringify(id)},"type":"${MessageType.Next}","payload":${payload}}`;
}

/**
 * Delivers one lifecycle event to the subscriptions it concerns, read page by page from the topic
 * index; the read check, redaction and filter once per group of subscriptions with the same document,
 * variables and user (they are the subscriber's); one GraphQL execution per distinct (document,
 * variables, value shown) when the selection reads nothing but that value, else per group; posts
 * with bounded concurrency, starting as soon as the first page's frames exist, each under its own
 * timeout, retrying throttling with backoff and removing gone connections.
 */
export class Fanout {
  private readonly filters = new Map<string, Expression | undefined>();
  /** Keyed by the document cache's parsed documents, so it is bounded as that cache is. */
  private readonly payloadOnly = new WeakMap<DocumentNode, boolean>();

  /** The posts' timeouts, shared by the posts of one millisecond. */
  private readonly postDeadlines: Deadlines;

  constructor(private readonly deps: FanoutDeps) {
    this.postDeadlines = new Deadlines(deps.options.postTimeoutMs);
  }

  async deliver(event: LifecycleEvent, writtenAt?: number): Promise<DeliveryReport> {
    const info = this.deps.app.model(event.model);
    if (!info) return emptyReport();
    // Two pools' worth of rows first, so the first posts leave while the rest are read; then
    // pages of at most four, so no page's parsing holds the event loop long while posts wait on it.
    const { concurrency } = this.deps.options;
    const sizes = { first: 2 * concurrency, largest: 4 * concurrency };
    return this.deliverTo(event, this.deps.store.subscriptionPagesFor([modelTopic(info.name), recordTopic(info, event.key)], sizes), undefined, writtenAt);
  }

  /**
   * The event to the given subscription rows (a page at a time): what `deliver` does once it has
   * read them, and what a fan-out worker does with the rows of its share of a topic. `forget` is
   * called for each connection found gone, once its rows are removed (a worker drops its entries
   * from the topic's packs, which a connection whose rows have expired no longer leads to).
   * `writtenAt` (epoch ms) is when the event was written, for the report's age and the late log.
   */
  async deliverTo(
    event: LifecycleEvent,
    pages: AsyncIterable<SubscriptionRow[]> | Iterable<SubscriptionRow[]>,
    forget?: (connectionId: string) => Promise<void>,
    writtenAt?: number,
  ): Promise<DeliveryReport> {
    const report = emptyReport();
    const info = this.deps.app.model(event.model);
    if (!info) return report;
    const { concurrency } = this.deps.options;
    const outbox = new Outbox<Message>();
    const gone = new Set<string>();
    const posting = drainBounded(outbox, concurrency, async ({ target, data }) => {
      const outcome = await this.post(target, data, report);
      if (outcome === "ok") report.delivered++;
      else if (outcome === "gone") {
        report.goneFrames++;
        gone.add(target.connectionId);
      } else {
        if (outcome === "timeout") report.timedOut++;
        else report.failed++;
        log.warn("subscription post failed", { event: event.name, connectionId: target.connectionId, outcome });
      }
    });
    const ended = new Map<string, SubscriptionRow>();
    // Per group (document, variables, user): its payload, shared by the group's rows on every page.
    const payloads = new Map<string, Promise<string | undefined>>();
    const executions = new Map<string, Promise<string>>();
    const overBudget = new Set<string>();
    const deliverGroup = async (members: SubscriptionRow[]): Promise<void> => {
      const first = members[0] as SubscriptionRow;
      let payload = payloads.get(first.group);
      if (!payload) {
        payload = overBudget.has(first.group) ? this.tooCostly(info, event, first) : this.payloadFor(info, event, first, executions, report);
        payloads.set(first.group, payload);
        payload.catch((error: unknown) => log.error("subscription execution failed", { event: event.name, subscription: first.id, ...errorFields(error) }));
      }
      let data: string | undefined;
      try {
        data = await payload;
      } catch {
        // Planned and dropped: the payload could not be made (logged above with its error).
        report.planned += members.length;
        report.failed += members.length;
        return;
      }
      if (data !== undefined) {
        report.planned += members.length;
        for (const row of members) outbox.push({ target: row, data: nextFrame(row.id, data) });
      }
    };
    const deferred: SubscriptionRow[][] = [];
    try {
      for await (const page of pages) {
        report.subscriptions += page.length;
        const endedHere = await this.endedConnections(page);
        for (const [connectionId, row] of endedHere) ended.set(connectionId, row);
        const groups = new Map<string, SubscriptionRow[]>();
        for (const row of page) {
          if (endedHere.has(row.connectionId)) continue;
          const members = groups.get(row.group);
          if (members) members.push(row);
          else groups.set(row.group, [row]);
        }
        const cheap = [...groups.values()].filter((members) => {
          const first = members[0] as SubscriptionRow;
          const cost = this.filterCost(first, event);
          // Over the budget nothing is matched: its answer is as cheap as any other group's.
          if (cost > MAX_FILTER_STEPS_PER_EVENT) {
            if (!overBudget.has(first.group))
              log.warn("subscription filter over the matching budget", { event: event.name, subscription: first.id, steps: cost });
            overBudget.add(first.group);
            return true;
          }
          const costly = cost > COSTLY_FILTER_STEPS;
          if (costly) deferred.push(members);
          return !costly;
        });
        await forEachBounded(cheap, concurrency, deliverGroup);
      }
      // Costly filters last and one at a time: the posts already queued proceed between them.
      await forEachBounded(deferred, 1, deliverGroup);
    } finally {
      outbox.close();
      await posting;
    }

    if (writtenAt !== undefined && report.planned > 0) {
      report.ageMs = Math.max(0, (this.deps.now?.() ?? Date.now()) - writtenAt);
      if (report.ageMs > LATE_DELIVERY_MS) log.warn("subscription delivery late", { event: event.name, key: event.key, ...report, dropped: dropped(report) });
    }
    await forEachBounded([...ended.values()], concurrency, (target) => this.stop(target));
    report.gone = gone.size;
    await forEachBounded([...gone], concurrency, async (connectionId) => {
      await this.deps.store
        .removeConnection(connectionId)
        .then(() => forget?.(connectionId))
        .catch((error: unknown) => log.warn("could not remove a gone connection", { connectionId, ...errorFields(error) }));
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
    const error = [
      { message: "The credential of this connection has expired or was revoked: reconnect with a new access token", extensions: { code: "UNAUTHENTICATED" } },
    ];
    try {
      const subscriptions = await this.deps.store.subscriptionsOf(target.connectionId);
      for (const row of subscriptions) await this.deps.transport.post(row, stringifyMessage({ id: row.id, type: MessageType.Error, payload: error }));
      await this.deps.transport.disconnect(target);
    } catch (failure) {
      log.warn("could not stop a connection whose credential ended", { connectionId: target.connectionId, ...errorFields(failure) });
    }
    await this.deps.store.removeConnection(target.connectionId).catch(() => undefined);
  }

  /**
   * The serialised `next` payload for the subscribers of `row`'s group, or undefined when they must
   * not hear of the event (unreadable, or outside their filter). The read check and the redaction
   * are always this group's own; only the execution over the value they are shown may be shared.
   */
  private async payloadFor(
    info: ModelInfo,
    event: LifecycleEvent,
    row: SubscriptionRow,
    executions: Map<string, Promise<string>>,
    report: DeliveryReport,
  ): Promise<string | undefined> {
    const ctx = new Context({ requestId: `${event.name}:${row.group}`, ...(row.userId ? { userId: row.userId } : {}) });
    const output = await this.deps.app.domain.view(ctx, info, event.record);
    const filter = row.kind === "list" ? this.filter(row.filter) : undefined;
    const inSight = (shown: Record<string, unknown> | undefined): shown is Record<string, unknown> =>
      shown !== undefined && (!filter || evaluate(filter, shown));
    let value: unknown;
    if (!inSight(output)) {
      // Out of sight now: one last event if it was in sight before this change.
      if (!event.previous || !inSight(await this.deps.app.domain.view(ctx, info, event.previous))) return undefined;
      value = row.kind === "list" ? { type: LEFT_TYPE, key: event.key, [camel(info.name)]: null } : null;
    } else if (row.kind === "list") {
      value = { type: EVENT_TYPES[event.kind], key: event.key, [camel(info.name)]: output };
    } else {
      value = event.kind === "Deleted" ? null : output;
    }
    const shown = this.readsOnlyThePayload(row) ? plainValueKey(value) : undefined;
    // A shared execution runs as nobody: no resolver of such a document consults the caller.
    const [key, executionCtx] =
      shown === undefined
        ? [`group\u0000${row.group}`, ctx]
        : [`value\u0000${documentKey(row)}\u0000${shown}`, new Context({ requestId: `${event.name}:shared` })];
    let execution = executions.get(key);
    if (!execution) {
      report.executions++;
      execution = this.execute(executionCtx, row, value).then((result) => JSON.stringify(result));
      executions.set(key, execution);
    }
    return execution;
  }

  /**
   * For a group whose filter is over the matching budget for this event: the FILTER_TOO_COSTLY
   * payload if the record (as changed, or as it was) is readable by the group, else nothing, so
   * that the error says no more about a hidden record than a cheap filter's silence does.
   */
  private async tooCostly(info: ModelInfo, event: LifecycleEvent, row: SubscriptionRow): Promise<string | undefined> {
    const ctx = new Context({ requestId: `${event.name}:${row.group}`, ...(row.userId ? { userId: row.userId } : {}) });
    if ((await this.deps.app.domain.view(ctx, info, event.record)) !== undefined) return TOO_COSTLY;
    if (event.previous && (await this.deps.app.domain.view(ctx, info, event.previous)) !== undefined) return TOO_COSTLY;
    return undefined;
  }

  private async execute(ctx: Context, row: SubscriptionRow, value: unknown): Promise<Result> {
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

  private readsOnlyThePayload(row: SubscriptionRow): boolean {
    const document = this.deps.documents.parse(row.query);
    let known = this.payloadOnly.get(document);
    if (known === undefined) {
      known = readsOnlyThePayload(this.deps.schema, document);
      this.payloadOnly.set(document, known);
    }
    return known;
  }

  /** What matching `row`'s filter against this event's record may cost (0 without a filter). */
  private filterCost(row: SubscriptionRow, event: LifecycleEvent): number {
    const filter = row.kind === "list" ? this.filter(row.filter) : undefined;
    if (!filter) return 0;
    return evaluationCost(filter, event.record) + (event.previous ? evaluationCost(filter, event.previous) : 0);
  }

  private filter(text: string | undefined): Expression | undefined {
    if (!text) return undefined;
    // Filter texts come from clients: the parsed ones kept are bounded, least recently used out.
    const known = this.filters.has(text);
    // A stored filter is our own print of one its model's limits admitted at subscribe time: it is
    // parsed without them, so a deploy that lowers a limit does not break live subscriptions.
    const parsed = known ? this.filters.get(text) : parseFilter(text, ADMITTED);
    if (known) this.filters.delete(text);
    else if (this.filters.size >= PARSED_FILTERS_KEPT) this.filters.delete(this.filters.keys().next().value as string);
    this.filters.set(text, parsed);
    return parsed;
  }

  private async post(target: Target, data: string, report: DeliveryReport): Promise<PostOutcome> {
    const { postAttempts, retryBaseMs } = this.deps.options;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.postDeadlines.run<PostOutcome>(
        (signal) =>
          this.deps.transport.post(target, data, signal).then(
            (): PostOutcome => "ok",
            (error: unknown): PostOutcome => classifyPostError(error),
          ),
        "timeout",
      );
      if (outcome !== "throttled" || attempt >= postAttempts) return outcome;
      report.retries++;
      log.info("subscription post retried", { connectionId: target.connectionId, attempt, reason: outcome });
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
