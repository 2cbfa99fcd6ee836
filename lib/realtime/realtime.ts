import type { GraphQLSchema } from "graphql";
import type { Application } from "../core/application.ts";
import { DocumentCache } from "../graphql/documents.ts";
import { buildGraphQLSchema } from "../graphql/schema.ts";
import { graphqlOptions } from "../graphql/service.ts";
import { documentClient } from "../store/dynamodb-client.ts";
import { DynamoRepository } from "../store/dynamodb.ts";
import { tablePrefix } from "../store/table-prefix.ts";
import { applicationAuthenticator, applicationSessionCheck, type ConnectionAuthenticator } from "./auth.ts";
import { Fanout } from "./fanout.ts";
import { DEFAULT_FANOUT_OPTIONS, type FanoutOptions } from "./fanout-options.ts";
import { FanoutPlanner } from "./fanout-plan.ts";
import type { FanoutQueue } from "./fanout-queue.ts";
import { keyedReferences, type DocumentReference } from "./pack-references.ts";
import { dynamoPackTable } from "./pack-table.ts";
import { realtimeOptions, type RealtimeOptions } from "./options.ts";
import { SubscriptionPlanner } from "./planner.ts";
import { GraphQLWsProtocol } from "./protocol.ts";
import { RealtimeStore, type RealtimeRepositories } from "./store.ts";
import { connectionShape, realtimeTableNames, subscriptionShape, userConnectionShape } from "./tables.ts";
import { ApiGatewayTransport, type Transport } from "./transport.ts";

export interface RealtimeParts {
  /** Connection and subscription rows; DynamoDB (`${TABLE_PREFIX}ws-*`) unless given. */
  repositories?: RealtimeRepositories;
  transport?: Transport;
  auth?: ConnectionAuthenticator;
  options?: RealtimeOptions;
  now?: () => number;
  /** Skip graphql-js's type-system validation: see `SchemaBuildOptions.assumeValid`. */
  assumeValidSchema?: boolean;
  /**
   * Where the stream function hands fan-out over (fanout-env.ts chooses it for functions/):
   * without one, the stream function delivers every event itself.
   */
  fanoutQueue?: FanoutQueue;
  fanoutOptions?: FanoutOptions;
  /** Names the packs' subscription documents; keyed by the application secret unless given (tests inject collisions). */
  documentReference?: DocumentReference;
}

export interface Realtime {
  schema: GraphQLSchema;
  store: RealtimeStore;
  protocol: GraphQLWsProtocol;
  fanout: Fanout;
  /** Set when a fan-out queue is: the stream function plans and sends shares instead of delivering. */
  planner?: FanoutPlanner;
}

/** SQS's limit is 256 KiB a message; the rest is left to the message's attributes and envelope. */
const MAX_SHARE_MESSAGE_BYTES = 240 * 1024;

export function dynamoRealtimeRepositories(prefix?: string): RealtimeRepositories {
  const names = realtimeTableNames(tablePrefix("the WebSocket tables", prefix));
  const subscriptions = new DynamoRepository(documentClient(), names.subscriptions, subscriptionShape);
  return {
    connections: new DynamoRepository(documentClient(), names.connections, connectionShape),
    subscriptions,
    topicMarkers: subscriptions,
    topicPacks: dynamoPackTable(documentClient(), names.subscriptions),
    userConnections: new DynamoRepository(documentClient(), names.userConnections, userConnectionShape),
  };
}

/**
 * The WebSocket face of an application: the same executable schema and document cache as the
 * HTTP face builds (generated from the models at cold start), over stores and a transport that
 * tests replace.
 */
export function createRealtime(app: Application, parts: RealtimeParts = {}): Realtime {
  const graphql = graphqlOptions(app);
  const schema = buildGraphQLSchema(app, graphql, { assumeValid: parts.assumeValidSchema ?? false });
  const documents = new DocumentCache(schema, graphql.limits, { introspection: graphql.introspection, size: graphql.documentCacheSize });
  const repositories = parts.repositories ?? dynamoRealtimeRepositories();
  const store = new RealtimeStore(repositories, parts.now, parts.documentReference ?? keyedReferences(() => app.secret()));
  const transport = parts.transport ?? new ApiGatewayTransport();
  const options = parts.options ?? realtimeOptions();
  const planner = new SubscriptionPlanner(app, schema, documents);
  const fanoutOptions = parts.fanoutOptions ?? DEFAULT_FANOUT_OPTIONS;
  return {
    schema,
    store,
    ...(parts.fanoutQueue
      ? { planner: new FanoutPlanner(app, store, parts.fanoutQueue, { ...fanoutOptions, maxMessageBytes: MAX_SHARE_MESSAGE_BYTES }, parts.now) }
      : {}),
    protocol: new GraphQLWsProtocol({ store, transport, auth: parts.auth ?? applicationAuthenticator(app), planner, options }),
    fanout: new Fanout({ app, schema, documents, store, transport, options, ...withSessionCheck(app), ...(parts.now ? { now: parts.now } : {}) }),
  };
}

function withSessionCheck(app: Application): { revokedSessions?: (ids: string[]) => Promise<Set<string>> } {
  const check = applicationSessionCheck(app);
  return check ? { revokedSessions: check } : {};
}
