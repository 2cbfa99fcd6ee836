import type { Application } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { Service } from "../core/service.ts";
import { MailerService } from "../auth/mail/mailer.ts";
import { authRoutes } from "../auth/routes/list.ts";
import { IDENTS, REFRESH, SESSIONS } from "../auth/tables.ts";
import { USED_STATES_SUFFIX } from "../auth/idp/used-states.ts";
import { consumeFanoutStatement, manageConnectionsStatement, sendFanoutStatement } from "../realtime/serverless.ts";
import { CONNECTIONS_SUFFIX, SUBSCRIPTIONS_SUFFIX, USER_CONNECTIONS_SUFFIX } from "../realtime/tables.ts";
import { authFunctions } from "../auth/routes/serverless.ts";
import { sessionRoutes } from "../auth/routes/session-routes.ts";
import { serverlessFunctions } from "../rest/functions.ts";
import { deriveRoutes, isRecordRead, type Route } from "../rest/routes.ts";
import { tableLogicalId } from "../store/cloudformation.ts";

/**
 * One IAM role per function kind and route group, each granted the tables, indexes and actions its
 * code uses (docs/deploying.md, "Roles"): rendered into schema-cache/roles.json, which the packaging
 * hook (lib/cli/stacks/function-roles.mjs) turns into roles and gives each function.
 *
 * What each kind uses is read off the code it runs, and test/deploy/roles.test.ts holds it to that:
 * it runs every function against DynamoDB Local and checks each recorded call against its role.
 */

/** Item reads by key: a record read, a parent's permission check, the caller's session. */
const KEY_READ = ["dynamodb:GetItem", "dynamodb:BatchGetItem"];
/** The reads a listing makes: by key, Query on the table or an index, Scan. */
const READ = [...KEY_READ, "dynamodb:Query", "dynamodb:Scan"];
/**
 * PartiQL `SELECT ... IN` on a partition key (lib/store/dynamodb-partiql.ts): granted only where
 * code runs it: GraphQL's batched child lists (`listEach`), the auth tables' rows of a user (its
 * sessions revoked, its idents listed), and the realtime subscriptions of a topic or connection.
 */
const PARTIQL = ["dynamodb:PartiQLSelect"];
const WRITE = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"];

/** table logical id -> actions; `indexes` says whether they reach its indexes too. */
type Access = Map<string, { actions: Set<string>; indexes: boolean }>;

interface Grants {
  tables: Access;
  mail: boolean;
  connections: boolean;
  /** The fan-out queue: the stream sends to it, the worker's event source consumes it. */
  fanout?: "send" | "consume";
}

const none = (): Grants => ({ tables: new Map(), mail: false, connections: false });

function allow(grants: Grants, table: string, actions: readonly string[], indexes: boolean): void {
  const entry = grants.tables.get(table) ?? { actions: new Set<string>(), indexes: false };
  for (const action of actions) entry.actions.add(action);
  entry.indexes ||= indexes;
  grants.tables.set(table, entry);
}

function merge(into: Grants, from: Grants): Grants {
  for (const [table, { actions, indexes }] of from.tables) allow(into, table, [...actions], indexes);
  into.mail ||= from.mail;
  into.connections ||= from.connections;
  if (from.fanout) into.fanout = from.fanout;
  return into;
}

const table = (suffix: string): string => tableLogicalId(suffix);

/** Who is calling: the session a cookie names is read by key (lib/auth/access.ts). */
function identity(grants: Grants): Grants {
  allow(grants, table(SESSIONS), KEY_READ, false);
  return grants;
}

/** The parents whose permission a model's records take (`belongsTo(..., { requires })`), read by key. */
function parents(app: Application, info: ModelInfo, grants: Grants): Grants {
  for (const relation of Object.values(info.relations)) {
    if (relation.kind !== "belongsTo" || !relation.requires || Object.keys(relation.requires).length === 0) continue;
    const parent = app.models().find((m) => m.cls === relation.target());
    if (parent) allow(grants, table(parent.name), KEY_READ, false);
  }
  return grants;
}

function modelOf(app: Application, name: string): ModelInfo {
  const info = app.models().find((m) => m.name === name);
  if (!info) throw new Error(`no model ${name}`);
  return info;
}

/**
 * What a route does with its model's table: a record read reads it by key (its function's store
 * has no listing: lib/store/select-records.ts), a query lists it (the table and its indexes), every
 * other route lists and writes it.
 */
type ModelUse = "key" | "list" | "write";

function modelGrants(app: Application, info: ModelInfo, use: ModelUse): Grants {
  const grants = identity(parents(app, info, none()));
  if (use === "key") allow(grants, table(info.name), KEY_READ, false);
  else allow(grants, table(info.name), [...READ, ...(use === "list" ? [] : WRITE)], true);
  return grants;
}

/**
 * The models GraphQL lists for many parents at once (lib/graphql/relations.ts, through the
 * domain's `queryEach`: a PartiQL `IN` per 50 parents): the children of a contains relation and the
 * join rows of a many-to-many one, when the relation's models are registered as GraphQL takes them.
 */
function batchListed(app: Application): Set<string> {
  const registered = (name: string) => app.models().find((m) => m.name === name);
  const listed = new Set<string>();
  for (const info of app.models()) {
    for (const relation of Object.values(info.relations)) {
      if (relation.kind === "contains" && registered(relation.target().name)) listed.add(relation.target().name);
      if (relation.kind === "manyToMany" && registered(relation.target().name)?.keyFields.length === 1 && registered(relation.through().name))
        listed.add(relation.through().name);
    }
  }
  return listed;
}

/**
 * A service's operations are the application's own code: they may reach any model through
 * `app.domain`, so a service grants every model table unless its class says which models it uses
 * (`static models = ["Post"]`), and then only those.
 */
function serviceGrants(app: Application, name: string): Grants {
  const entry = app.services().find((e) => e.name === name);
  const declared = entry ? (entry.service.constructor as typeof Service).models : undefined;
  const models = declared === undefined ? app.models() : declared.map((m) => modelOf(app, m));
  return models.reduce((grants, info) => merge(grants, modelGrants(app, info, "write")), identity(none()));
}

/** Reads: a record read and a query. */
export function readsOnly(route: Route): boolean {
  return isRecordRead(route) || (route.target.kind === "crud" && route.target.action === "query");
}

function routeGrants(app: Application, route: Route): Grants {
  const t = route.target;
  if (t.kind === "crud") return modelGrants(app, modelOf(app, t.model), isRecordRead(route) ? "key" : readsOnly(route) ? "list" : "write");
  // A model operation is the model's code acting on its own record.
  if (t.kind === "modelOperation") return modelGrants(app, modelOf(app, t.model), "write");
  if (t.kind === "serviceOperation") return serviceGrants(app, t.service);
  return none(); // the OpenAPI document
}

const identityModel = (app: Application): ModelInfo | undefined => app.models().find((m) => m.cls.identity);

/**
 * The providers' routes (functions/auth.ts): logins read and write idents, sessions and users, and
 * issue refresh tokens (written, never read there); the Idp's used states; mail through SES.
 */
function providerGrants(app: Application): Grants {
  const grants = none();
  for (const suffix of [IDENTS, SESSIONS, USED_STATES_SUFFIX]) allow(grants, table(suffix), [...READ, ...WRITE], true);
  // A user's idents (linking, a password change) and sessions (revoked at a change or recovery), by its `by_user` index.
  for (const suffix of [IDENTS, SESSIONS]) allow(grants, table(suffix), PARTIQL, true);
  allow(grants, table(REFRESH), WRITE, false);
  const user = identityModel(app);
  if (user) allow(grants, table(user.name), [...READ, ...WRITE], true);
  grants.mail = app.services().some((e) => e.service instanceof MailerService);
  return grants;
}

/**
 * The service's own routes (functions/auth-session.ts): sessions and refresh tokens are read and
 * rotated, idents listed and unlinked (deleted), the user read by key for its view. A route whose
 * contract says it uses no store (the keys, the providers' list) is granted nothing.
 */
function sessionGrants(app: Application, storeUsed: boolean): Grants {
  const grants = none();
  if (!storeUsed) return grants;
  for (const suffix of [SESSIONS, REFRESH]) allow(grants, table(suffix), [...READ, ...WRITE], true);
  allow(grants, table(IDENTS), [...READ, "dynamodb:DeleteItem"], true);
  // The caller's idents listed; the sessions an unlinked ident opened, revoked: by their `by_user` index.
  for (const suffix of [IDENTS, SESSIONS]) allow(grants, table(suffix), PARTIQL, true);
  const user = identityModel(app);
  if (user) allow(grants, table(user.name), KEY_READ, false);
  return grants;
}

/** Every model table: GraphQL serves every model's reads and writes, and lists the children of many parents through PartiQL. */
function everyModel(app: Application): Grants {
  const grants = app.models().reduce((into, info) => merge(into, modelGrants(app, info, "write")), identity(none()));
  for (const name of batchListed(app)) allow(grants, table(name), PARTIQL, true);
  return grants;
}

/** The WebSocket routes: connections, their subscriptions and per-user counts are read and written; frames are posted to connections. */
function websocketGrants(): Grants {
  const grants = identity(none());
  for (const suffix of [CONNECTIONS_SUFFIX, SUBSCRIPTIONS_SUFFIX, USER_CONNECTIONS_SUFFIX]) allow(grants, table(suffix), [...READ, ...WRITE], true);
  // A connection's subscriptions, by connection (a `complete`, a disconnect).
  allow(grants, table(SUBSCRIPTIONS_SUFFIX), PARTIQL, true);
  grants.connections = true;
  return grants;
}

/**
 * The stream: the subscriptions a change matches (by topic) and each subscriber's permission on it
 * (the parents a model's records take it from, by key) are read, the change is posted; a connection
 * API Gateway reports gone is deleted with its subscriptions and per-user count.
 */
function streamGrants(app: Application): Grants {
  const grants = identity(none());
  for (const suffix of [SUBSCRIPTIONS_SUFFIX, USER_CONNECTIONS_SUFFIX]) allow(grants, table(suffix), [...READ, ...WRITE], true);
  // The subscriptions of a topic, and of a gone connection.
  allow(grants, table(SUBSCRIPTIONS_SUFFIX), PARTIQL, true);
  allow(grants, table(CONNECTIONS_SUFFIX), WRITE, false);
  for (const info of app.models()) parents(app, info, grants);
  grants.connections = true;
  grants.fanout = "send";
  return grants;
}

/**
 * The fan-out worker: its share of the topic's packs and their documents, each subscriber's permission
 * (parents by key), posts; a gone connection is deleted with its subscriptions (their topic markers
 * updated) and per-user place. Its queue is consumed with this role by the event source mapping.
 */
function fanoutGrants(app: Application): Grants {
  const grants = identity(none());
  for (const suffix of [SUBSCRIPTIONS_SUFFIX, USER_CONNECTIONS_SUFFIX]) allow(grants, table(suffix), [...READ, ...WRITE], true);
  // The subscriptions of a gone connection.
  allow(grants, table(SUBSCRIPTIONS_SUFFIX), PARTIQL, true);
  allow(grants, table(CONNECTIONS_SUFFIX), WRITE, false);
  for (const info of app.models()) parents(app, info, grants);
  grants.connections = true;
  grants.fanout = "consume";
  return grants;
}

/** `webda auth migrate` (lib/auth/v3): scans and moves idents, scans and updates users. */
function migrationGrants(app: Application): Grants {
  const grants = none();
  allow(grants, table(IDENTS), ["dynamodb:Scan", ...KEY_READ, "dynamodb:PutItem", "dynamodb:DeleteItem"], false);
  const user = identityModel(app);
  if (user) allow(grants, table(user.name), ["dynamodb:Scan", "dynamodb:UpdateItem"], false);
  return grants;
}

function statements(grants: Grants, app: Application): Record<string, unknown>[] {
  // Tables with the same actions share a statement: fewer characters against IAM's size cap.
  const byActions = new Map<string, unknown[]>();
  for (const [id, { actions, indexes }] of [...grants.tables].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ordered = [...READ, ...PARTIQL, ...WRITE].filter((a) => actions.has(a));
    const key = JSON.stringify(ordered);
    const arn = { "Fn::GetAtt": [id, "Arn"] };
    byActions.set(key, [...(byActions.get(key) ?? []), arn, ...(indexes ? [{ "Fn::Join": ["", [arn, "/index/*"]] }] : [])]);
  }
  const out: Record<string, unknown>[] = [...byActions].map(([actions, resources]) => ({
    Effect: "Allow",
    Action: JSON.parse(actions) as string[],
    Resource: resources,
  }));
  if (grants.connections) out.push(manageConnectionsStatement());
  if (grants.fanout) out.push(grants.fanout === "send" ? sendFanoutStatement() : consumeFanoutStatement());
  if (grants.mail) out.push(...mailStatements(app));
  return out;
}

/** The address of a `from` option, as SES reads it: `Name <address>` or the plain address. */
export function senderAddress(from: string): string {
  const bracketed = /<([^<>\s]+)>\s*$/.exec(from);
  return (bracketed ? (bracketed[1] as string) : from).trim();
}

/**
 * SES authorises a send on the sender's identity (the From address or its domain, never any
 * identity), and the `ses:FromAddress` condition holds the send to the configured sender itself:
 * an identity that is a whole domain would otherwise let the role send as any address of it.
 */
function mailStatements(app: Application): Record<string, unknown>[] {
  const mailers = app.services().flatMap((e) => (e.service instanceof MailerService ? [e.service] : []));
  if (mailers.length === 0) return [];
  // As written: SES compares the From address it is sent (the option as given), case and all.
  const senders = [...new Set(mailers.map((m) => senderAddress(m.options.from)))].sort();
  const identities = [
    ...new Set(
      senders.flatMap((sender) => {
        const from = sender.toLowerCase();
        return [from, from.slice(from.lastIndexOf("@") + 1)];
      }),
    ),
  ];
  return [
    {
      Effect: "Allow",
      Action: ["ses:SendEmail"],
      Resource: identities.map((identity) => ({ "Fn::Sub": `arn:\${AWS::Partition}:ses:\${AWS::Region}:\${AWS::AccountId}:identity/${identity}` })),
      Condition: { StringEquals: { "ses:FromAddress": senders } },
    },
  ];
}

/** `posts` -> `Posts`, `.well-known` -> `WellKnown` (as lib/cli/stacks/route-groups.mjs names groups). */
function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== "")
    .map((p) => (p[0] as string).toUpperCase() + p.slice(1))
    .join("");
}

/** The first path segment every event of a function shares (its route group), if any. */
function groupOf(events: { httpApi: unknown }[]): string | undefined {
  const segments = new Set(
    events.map((e) =>
      typeof e.httpApi === "string"
        ? undefined
        : String((e.httpApi as { path: string }).path)
            .split("/")
            .find((s) => s !== ""),
    ),
  );
  return segments.size === 1 && !segments.has(undefined) ? [...segments][0] : undefined;
}

/** A role that grants no data: the function writes its logs, nothing else. */
export const LOGS_ONLY_ROLE = "LogsOnlyRole";

export interface RoleMap {
  /** Role logical id -> its statements (the logs and event statements are added when packaging). */
  roles: Record<string, Record<string, unknown>[]>;
  /** Serverless function name -> role logical id: the derived REST and auth functions. */
  functions: Record<string, string>;
  /** Handler -> role logical id: the hand-written functions of serverless.yml. */
  handlers: Record<string, string>;
}

/** The roles of an application's functions, in whichever `rest.packaging` mode it uses. */
export function roleMap(app: Application): RoleMap {
  const byRole = new Map<string, Grants>();
  const functions: Record<string, string> = {};
  const give = (fn: string, role: string, grants: Grants) => {
    const id = grants.tables.size === 0 && !grants.mail && !grants.connections ? LOGS_ONLY_ROLE : role;
    byRole.set(id, merge(byRole.get(id) ?? none(), grants));
    functions[fn] = id;
  };

  const routes = deriveRoutes(app);
  const routeOf = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  for (const [name, fn] of Object.entries(serverlessFunctions(routes, app.definition.rest))) {
    const served = fn.events.flatMap((e) => (typeof e.httpApi === "string" ? [] : [routeOf.get(`${e.httpApi.method} ${e.httpApi.path}`) as Route]));
    // The single function serves every route; the catch-all alone answers 404 and 405 from the route table.
    const grants = served.reduce((g, r) => merge(g, routeGrants(app, r)), none());
    const group = groupOf(fn.events);
    // Record reads (by key, no secret read: functions/rest-read.ts) apart from queries (lists,
    // whose continuation tokens are sealed with the application secret).
    const kind =
      served.length > 0 && served.every(isRecordRead)
        ? "Read"
        : served.length > 0 && served.every(readsOnly)
          ? "Query"
          : served.length > 0 && served.every((r) => r.target.kind === "serviceOperation")
            ? "Service"
            : "Write";
    give(name, group === undefined ? `${pascal(name)}Role` : `${pascal(group)}${kind}Role`, grants);
  }

  const auth = new Map(authRoutes(app).map((r) => [`${r.method} ${r.path}`, r]));
  const own = new Set(sessionRoutes().map((r) => r.id));
  for (const [name, fn] of Object.entries(authFunctions(app))) {
    const served = fn.events.map((e) => auth.get(`${e.httpApi.method} ${e.httpApi.path}`)).filter((r) => r !== undefined);
    const sessions = sessionGrants(
      app,
      served.some((r) => own.has(r.id) && r.contract.store),
    );
    if (fn.handler === "functions/auth-session.handler") give(name, "AuthSessionRole", sessions);
    // With `rest.packaging` model or single, this one function serves the session routes too.
    else give(name, "AuthRole", merge(providerGrants(app), sessions));
  }

  const handlers: Record<string, string> = {};
  const hand = (handler: string, role: string, grants: Grants) => {
    byRole.set(role, merge(byRole.get(role) ?? none(), grants));
    handlers[handler] = role;
  };
  hand("functions/graphql.handler", "GraphqlRole", everyModel(app));
  handlers["functions/graphiql.handler"] = LOGS_ONLY_ROLE;
  byRole.set(LOGS_ONLY_ROLE, byRole.get(LOGS_ONLY_ROLE) ?? none());
  hand("functions/ws.handler", "WebsocketRole", websocketGrants());
  hand("functions/stream.handler", "StreamRole", streamGrants(app));
  hand("functions/fanout.handler", "FanoutRole", fanoutGrants(app));
  hand("functions/migrate.handler", "MigrateRole", migrationGrants(app));

  const roles = Object.fromEntries([...byRole].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, grants]) => [id, statements(grants, app)]));
  return { roles, functions, handlers };
}
