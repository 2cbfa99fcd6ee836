import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, parseMessage, stringifyMessage, type Message, type SubscribeMessage } from "graphql-ws";
import { Context } from "../core/context.ts";
import { UnavailableError } from "../core/errors.ts";
import { timeLeftMs } from "../core/invocation-deadline.ts";
import { errorFields, log } from "../core/log.ts";
import { countEvent } from "../core/metrics.ts";
import type { ConnectionAuthenticator, ConnectionUser, Handshake } from "./auth.ts";
import { FRAME_ANSWER_RESERVE_MS, withAnswerReserve } from "./deadlines.ts";
import type { RealtimeOptions } from "./options.ts";
import type { SubscriptionPlanner } from "./planner.ts";
import type { ConnectionRow, RealtimeStore } from "./store.ts";
import { sleep } from "./pool.ts";
import { groupKey } from "./topics.ts";
import { classifyPostError, type Target, type Transport } from "./transport.ts";
import { admitUserConnection } from "./user-limit.ts";

export interface ProtocolDeps {
  store: RealtimeStore;
  transport: Transport;
  auth: ConnectionAuthenticator;
  planner: SubscriptionPlanner;
  options: RealtimeOptions;
}

export interface ConnectRequest extends Handshake, Target {
  /** API Gateway's connect time (epoch ms). */
  connectedAt: number;
}

export interface ConnectResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface MessageRequest extends Target {
  body: string | undefined;
  /** When API Gateway received the frame (epoch ms), so a cold start does not count against the client. */
  receivedAt: number;
  requestId: string;
}

/** What graphql-ws would have done with the socket; API Gateway can only delete it (see README). */
export interface MessageOutcome {
  closed?: { code: CloseCode; reason: string };
  /** The type of a frame that failed on our side and was answered as `failed` says (the socket stays). */
  failed?: string;
}

/**
 * The longest subscription id accepted, in UTF-8 bytes. graphql-ws's client uses UUIDs (36 bytes);
 * the id is part of a subscription's key and its pack entry's name, so it is kept short. A longer
 * one gets an `error` (`SUBSCRIPTION_ID_TOO_LONG`) for that id, and the socket stays.
 */
export const MAX_SUBSCRIPTION_ID_BYTES = 128;

/** A protocol frame (an ack, an error, a pong) is posted at most this many times when throttled. */
const SEND_ATTEMPTS = 3;
/** The first wait before posting a throttled frame again, doubled each time (with jitter). */
const SEND_RETRY_MS = 50;

function offered(headers: Record<string, string>): string[] {
  return (headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

function seconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/**
 * The graphql-transport-ws protocol as a state machine whose state lives in DynamoDB: each
 * Lambda invocation reads the connection row, applies one message, and writes what changed.
 * Where graphql-ws closes the socket with a 44xx code, we send what the protocol still allows
 * (an `error` for the subscription id concerned, if any), then delete the connection.
 */
export class GraphQLWsProtocol {
  constructor(private readonly deps: ProtocolDeps) {}

  async connect(request: ConnectRequest): Promise<ConnectResponse> {
    if (!offered(request.headers).includes(GRAPHQL_TRANSPORT_WS_PROTOCOL)) {
      return { statusCode: 400, body: `Subprotocol not acceptable: offer ${GRAPHQL_TRANSPORT_WS_PROTOCOL}` };
    }
    let userId: string | undefined;
    try {
      userId = await this.deps.auth.handshake(request);
    } catch {
      return { statusCode: 401, body: "Unauthorized" };
    }
    const { options } = this.deps;
    const row: Omit<ConnectionRow, "places"> = {
      connectionId: request.connectionId,
      endpoint: request.endpoint,
      connectedAt: request.connectedAt,
      state: "pending",
      ...(userId ? { userId } : {}),
      // Never initialised: reaped soon after API Gateway's idle timeout has closed the socket.
      expiresAt: seconds(request.connectedAt + options.pendingLifetimeMs + options.ttlMarginMs),
    };
    await this.deps.store.putConnection(row);
    return { statusCode: 200, headers: { "Sec-WebSocket-Protocol": GRAPHQL_TRANSPORT_WS_PROTOCOL } };
  }

  async disconnect(connectionId: string): Promise<void> {
    await this.deps.store.removeConnection(connectionId);
  }

  async message(request: MessageRequest): Promise<MessageOutcome> {
    let message: Message;
    try {
      message = parseMessage(request.body ?? "");
    } catch {
      return this.close(request, CloseCode.BadRequest, "Invalid message received");
    }
    const bytes = Buffer.byteLength(request.body ?? "");
    const { maxMessageBytes } = this.deps.options;
    if (bytes > maxMessageBytes) {
      const reason = `The message is ${bytes} bytes; at most ${maxMessageBytes} are accepted`;
      if (message.type !== MessageType.Subscribe) return this.close(request, CloseCode.BadRequest, reason);
      await this.refuse(request, message.id, "MESSAGE_TOO_LARGE", reason, maxMessageBytes, bytes);
      return {};
    }
    if (message.type === MessageType.Subscribe || message.type === MessageType.Complete) {
      const idBytes = Buffer.byteLength(message.id);
      if (idBytes > MAX_SUBSCRIPTION_ID_BYTES) {
        // No subscription can have such an id: a `complete` for it has nothing to end (graphql-ws
        // ignores a complete for an unknown id too); a subscribe gets its error, nothing is read.
        if (message.type === MessageType.Subscribe) {
          const reason = `The subscription id is ${idBytes} bytes; at most ${MAX_SUBSCRIPTION_ID_BYTES} are accepted`;
          await this.refuse(request, message.id, "SUBSCRIPTION_ID_TOO_LONG", reason, MAX_SUBSCRIPTION_ID_BYTES, idBytes);
        }
        return {};
      }
    }
    try {
      // The frame's work ends early enough to leave time for answering it (deadlines.ts).
      return await withAnswerReserve(FRAME_ANSWER_RESERVE_MS, (abandoned) => this.apply(request, message, abandoned));
    } catch (error) {
      return this.failed(request, message, error);
    }
  }

  /**
   * A frame whose work failed on our side (the database unreachable or slow, out of time): the
   * client's input was fine, so a subscribe gets an `error` for its id (`UNAVAILABLE`, retry
   * shortly; else `INTERNAL_SERVER_ERROR`) and the connection and its other subscriptions stay, as
   * they do after a failed `complete`; a `ping` still gets its `pong`. Only a failed `connection_init` closes (4500, as
   * graphql-ws does): the connection has no state a client could go on with.
   */
  private async failed(request: MessageRequest, message: Message, error: unknown): Promise<MessageOutcome> {
    log.error("WebSocket message failed", { connectionId: request.connectionId, requestId: request.requestId, type: message.type, ...errorFields(error) });
    countEvent("WebSocketFrameFailures");
    if (message.type === MessageType.ConnectionInit) return this.close(request, CloseCode.InternalServerError, "Internal server error");
    if (message.type === MessageType.Subscribe) {
      // Out of time: our deadline, or the SDK's own timeout where no deadline mapped it.
      const unavailable = error instanceof UnavailableError || (error instanceof Error && error.name === "TimeoutError");
      const answer = {
        message: unavailable ? "The subscription could not be set up in time: retry shortly" : "The subscription could not be set up",
        extensions: { code: unavailable ? "UNAVAILABLE" : "INTERNAL_SERVER_ERROR" },
      };
      await this.send(request, { id: message.id, type: MessageType.Error, payload: [answer] }).catch((e: unknown) =>
        log.warn("could not answer a failed subscribe", { connectionId: request.connectionId, id: message.id, ...errorFields(e) }),
      );
    }
    // A ping is answered whatever failed (the connection's read): the client's keep-alive is not its fault.
    if (message.type === MessageType.Ping)
      await this.send(request, message.payload ? { type: MessageType.Pong, payload: message.payload } : { type: MessageType.Pong }).catch((e: unknown) =>
        log.warn("could not answer a ping", { connectionId: request.connectionId, ...errorFields(e) }),
      );
    return { failed: message.type };
  }

  private async apply(request: MessageRequest, message: Message, abandoned?: AbortSignal): Promise<MessageOutcome> {
    const connection = await this.deps.store.getConnection(request.connectionId);
    // No timers in Lambda: the init deadline is enforced on the next frame, and the TTL reaps
    // rows of sockets that never send one. A missing row can only be such a reaped one.
    const late = !connection || (connection.state === "pending" && request.receivedAt - connection.connectedAt > this.deps.options.initTimeoutMs);
    if (late) return this.close(request, CloseCode.ConnectionInitialisationTimeout, "Connection initialisation timeout");
    switch (message.type) {
      case MessageType.ConnectionInit: {
        if (connection.state === "acknowledged") return this.close(request, CloseCode.TooManyInitialisationRequests, "Too many initialisation requests");
        const verdict = await this.deps.auth.init(message.payload, connection.userId);
        if (verdict === false) return this.close(request, CloseCode.Forbidden, "Forbidden");
        const who: Partial<ConnectionUser> = typeof verdict === "object" ? verdict : verdict === undefined ? {} : { userId: verdict };
        const userId = who.userId;
        const { connectionLifetimeMs, ttlMarginMs } = this.deps.options;
        const expiresAt = seconds(connection.connectedAt + connectionLifetimeMs + ttlMarginMs);
        const won = await this.deps.store.acknowledge(request.connectionId, connection.version, {
          ...(userId ? { userId } : {}),
          ...(who.authExpiresAt !== undefined ? { authExpiresAt: who.authExpiresAt } : {}),
          ...(who.sessionId ? { sessionId: who.sessionId } : {}),
          expiresAt,
        });
        if (!won) return this.close(request, CloseCode.TooManyInitialisationRequests, "Too many initialisation requests");
        if (userId) {
          const admission = await admitUserConnection(this.deps, userId, { connectionId: request.connectionId, expiresAt });
          // graphql-ws refuses a connection at init with 4403 (its onConnect returning false); the close removes the row.
          if (!admission.admitted)
            return this.close(request, CloseCode.Forbidden, `Too many connections: this user holds ${admission.held}, at most ${admission.limit} are allowed`);
        }
        await this.send(request, { type: MessageType.ConnectionAck });
        return {};
      }
      case MessageType.Ping:
        await this.send(request, message.payload ? { type: MessageType.Pong, payload: message.payload } : { type: MessageType.Pong });
        return {};
      case MessageType.Pong:
        return {};
      case MessageType.Subscribe:
        if (connection.state !== "acknowledged") return this.close(request, CloseCode.Unauthorized, "Unauthorized", message.id);
        return this.subscribe(request, connection, message, abandoned);
      case MessageType.Complete:
        await this.deps.store.completeSubscription(request.connectionId, message.id);
        return {};
      default:
        return this.close(request, CloseCode.BadRequest, `Unexpected message of type ${message.type} received`);
    }
  }

  private async subscribe(request: MessageRequest, connection: ConnectionRow, message: SubscribeMessage, abandoned?: AbortSignal): Promise<MessageOutcome> {
    const { id, payload } = message;
    const duplicate = (): Promise<MessageOutcome> => this.close(request, CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`, id);
    const { maxSubscriptionsPerConnection: max, maxFilterLength } = this.deps.options;
    const full = async (): Promise<MessageOutcome> => {
      await this.refuse(request, id, "TOO_MANY_SUBSCRIPTIONS", `This connection holds ${max} subscriptions; at most ${max} are allowed`, max, max + 1);
      return {};
    };
    // Refused by the connection row this frame has already read: no other read, no write, no
    // planning, so a burst's refusals are cheaper than its admissions. (A full connection answers
    // an id already in use this way too: telling the two apart would cost a read.)
    if (connection.places >= max) return full();
    if (await this.deps.store.hasSubscription(request.connectionId, id)) return duplicate();
    const ctx = new Context({ requestId: request.requestId, ...(connection.userId ? { userId: connection.userId } : {}) });
    const planned = await this.deps.planner.plan(ctx, payload, { maxFilterLength });
    if (!planned.ok) {
      await this.send(request, { id, type: MessageType.Error, payload: planned.errors });
      return {};
    }
    // One conditional increment: of subscribes racing for the last place exactly one passes.
    // Answered as failed already (out of the frame's time): no write that would contradict it.
    abandoned?.throwIfAborted();
    if (!(await this.deps.store.takePlace(request.connectionId, max))) return full();
    const variables = payload.variables ?? undefined;
    const operationName = payload.operationName ?? undefined;
    if (abandoned?.aborted) {
      await this.deps.store.releasePlace(request.connectionId).catch(() => undefined);
      abandoned.throwIfAborted();
    }
    let outcome: Awaited<ReturnType<RealtimeStore["addSubscription"]>>;
    try {
      outcome = await this.deps.store.addSubscription({
        ...planned.plan,
        connectionId: request.connectionId,
        id,
        query: payload.query,
        ...(variables ? { variables } : {}),
        ...(operationName ? { operationName } : {}),
        ...(connection.userId ? { userId: connection.userId } : {}),
        ...(connection.authExpiresAt !== undefined ? { authExpiresAt: connection.authExpiresAt } : {}),
        ...(connection.sessionId ? { sessionId: connection.sessionId } : {}),
        endpoint: connection.endpoint,
        group: groupKey({ query: payload.query, operationName, variables, userId: connection.userId }),
        expiresAt: connection.expiresAt,
        place: 1,
      });
    } catch (error) {
      // The place back, if the database lets us: else the connection's end frees it.
      await this.deps.store.releasePlace(request.connectionId).catch(() => undefined);
      throw error;
    }
    if (outcome !== "added") await this.deps.store.releasePlace(request.connectionId);
    if (outcome === "exists") return duplicate();
    countEvent("Subscriptions");
    return {};
  }

  /** Over a limit: an `error` for that subscription, nothing stored, the connection kept. */
  private async refuse(request: MessageRequest, id: string, code: string, message: string, limit: number, actual: number): Promise<void> {
    log.info("subscription refused by a limit", { connectionId: request.connectionId, code, limit, actual });
    countEvent("SubscriptionsRefused");
    await this.send(request, { id, type: MessageType.Error, payload: [{ message, extensions: { code, limit, actual } }] });
  }

  /**
   * One frame to the socket. A gone socket's rows are removed; a throttled post (a burst of frames
   * is a burst of posts) is tried again after a short jittered wait, while the invocation has time.
   */
  private async send(target: Target, message: Message): Promise<void> {
    const data = stringifyMessage(message);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.transport.post(target, data);
        return;
      } catch (error) {
        const failure = classifyPostError(error);
        if (failure === "gone") {
          await this.deps.store.removeConnection(target.connectionId);
          return;
        }
        if (failure !== "throttled" || attempt >= SEND_ATTEMPTS || timeLeftMs() < SEND_RETRY_MS * 2 ** attempt) throw error;
        await sleep(SEND_RETRY_MS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
      }
    }
  }

  private async close(target: Target, code: CloseCode, reason: string, subscriptionId?: string): Promise<MessageOutcome> {
    log.info("WebSocket closed by protocol", { connectionId: target.connectionId, closeCode: code, reason });
    if (subscriptionId !== undefined) {
      const error = { message: reason, extensions: { code: "CONNECTION_CLOSED", closeCode: code } };
      await this.send(target, { id: subscriptionId, type: MessageType.Error, payload: [error] }).catch((e: unknown) =>
        log.warn("could not send the closing error", { connectionId: target.connectionId, ...errorFields(e) }),
      );
    }
    // The socket is deleted even when its rows cannot be removed now (their TTL reaps them), and a
    // close never throws: the frame is answered, never left to a Lambda error.
    await this.deps.store
      .removeConnection(target.connectionId)
      .catch((e: unknown) => log.warn("could not remove a closed connection's rows", { connectionId: target.connectionId, ...errorFields(e) }));
    await this.deps.transport
      .disconnect(target)
      .catch((e: unknown) => log.warn("could not delete a closed connection", { connectionId: target.connectionId, ...errorFields(e) }));
    return { closed: { code, reason } };
  }
}
