import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, parseMessage, stringifyMessage, type Message, type SubscribeMessage } from "graphql-ws";
import { Context } from "../core/context.ts";
import { errorFields, log } from "../core/log.ts";
import { countEvent } from "../core/metrics.ts";
import type { ConnectionAuthenticator, ConnectionUser, Handshake } from "./auth.ts";
import type { RealtimeOptions } from "./options.ts";
import type { SubscriptionPlanner } from "./planner.ts";
import type { ConnectionRow, RealtimeStore } from "./store.ts";
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
}

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
    try {
      return await this.apply(request, message);
    } catch (error) {
      log.error("WebSocket message failed", { connectionId: request.connectionId, requestId: request.requestId, type: message.type, ...errorFields(error) });
      return this.close(request, CloseCode.InternalServerError, "Internal server error");
    }
  }

  private async apply(request: MessageRequest, message: Message): Promise<MessageOutcome> {
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
        return this.subscribe(request, connection, message);
      case MessageType.Complete:
        await this.deps.store.completeSubscription(request.connectionId, message.id);
        return {};
      default:
        return this.close(request, CloseCode.BadRequest, `Unexpected message of type ${message.type} received`);
    }
  }

  private async subscribe(request: MessageRequest, connection: ConnectionRow, message: SubscribeMessage): Promise<MessageOutcome> {
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
    if (!(await this.deps.store.takePlace(request.connectionId, max))) return full();
    const variables = payload.variables ?? undefined;
    const operationName = payload.operationName ?? undefined;
    const outcome = await this.deps.store.addSubscription({
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

  private async send(target: Target, message: Message): Promise<void> {
    try {
      await this.deps.transport.post(target, stringifyMessage(message));
    } catch (error) {
      if (classifyPostError(error) !== "gone") throw error;
      await this.deps.store.removeConnection(target.connectionId);
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
    await this.deps.store.removeConnection(target.connectionId);
    await this.deps.transport.disconnect(target);
    return { closed: { code, reason } };
  }
}
