import { randomUUID } from "node:crypto";
import type { Application } from "../../../lib/core/application.ts";
import type { ModelInfo } from "../../../lib/core/model-info.ts";
import { deriveRoutes, readsBody, type Route } from "../../../lib/rest/routes.ts";
import type { Call, Conformance, Result } from "./conformance.ts";
import type { Operation } from "./contract.ts";

type Item = Record<string, unknown>;

/**
 * A service operation's case: its success call (after any setup), calls sent before it and after
 * it for statuses the generic variants cannot produce; `generic: false` when the case sends every
 * failure itself (a single-use token, credentials in headers: the generic ones would not fit).
 */
export type ServiceCase = (ctx: CaseContext) => Promise<{ success: Call; before?: Call[]; extra?: Call[]; generic?: boolean }>;

export interface CaseContext {
  run: Conformance;
  /** The signed-in caller of the case, and a second one who owns nothing of it. */
  owner: string;
  other: string;
  unique: () => string;
}

/** 1.1 MB of JSON: over the 1 MiB body limit. */
const OVERSIZED = JSON.stringify({ padding: "x".repeat(1_100_000) });

const fill = (template: string, values: Item): string => template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));

function opIdOf(run: Conformance, route: Route): string | undefined {
  const item = (run.checker.document.paths as Record<string, Record<string, { operationId?: string }>> | undefined)?.[route.path];
  return item?.[route.method.toLowerCase()]?.operationId;
}

/**
 * The failure variants of a successful call. Those the server produces whatever the document says
 * are always sent, so a status the document forgets shows up as a mismatch: an unknown field
 * (400), a missing record (404), an oversized (413) or non-JSON (415) body on every route that
 * reads one (per the route table). Those that depend on state or policy are sent where listed: no
 * caller (401), the other caller (403), a stale If-Match (412).
 */
function variants(run: Conformance, success: Call, other: string, missingPath: string | undefined, takesBody: boolean): Call[] {
  const listed = new Set(run.checker.statuses(success.operationId));
  const out: Call[] = [];
  const always = (expect: number, change: Partial<Call>) => out.push({ ...success, ...change, expect });
  const ifListed = (expect: number, change: Partial<Call>) => {
    if (listed.has(expect)) always(expect, change);
  };
  if (takesBody && success.body !== null && typeof success.body === "object")
    always(400, { body: { ...(success.body as Item), notAField: 1 }, invalidBody: true });
  const { user: _owner, ...anonymous } = success;
  if (listed.has(401)) out.push({ ...anonymous, expect: 401 });
  ifListed(403, { user: other });
  if (missingPath) always(404, { path: missingPath });
  ifListed(412, { headers: { ...success.headers, "if-match": '"999999"' } });
  if (takesBody) {
    always(413, { rawBody: OVERSIZED, contentType: "application/json" });
    always(415, { rawBody: JSON.stringify(success.body ?? {}), contentType: "text/plain" });
  }
  return out;
}

/** What any route that reads a JSON body answers to a bad one: an unknown field (400), 1.1 MB (413), `text/plain` (415). */
export function bodyFailures(success: Call): Call[] {
  return [
    { ...success, expect: 400, body: { ...(success.body as Item), notAField: 1 }, invalidBody: true },
    { ...success, expect: 413, rawBody: OVERSIZED, contentType: "application/json" },
    { ...success, expect: 415, rawBody: JSON.stringify(success.body ?? {}), contentType: "text/plain" },
  ];
}

async function all(run: Conformance, calls: Call[]): Promise<void> {
  for (const c of calls) await run.call(c);
}

/**
 * A record to create: the document's own example of the model's input, with key fields made
 * unique to the run and fields that name a user (belongs-to the identity model) set to the caller.
 */
function sampleInput(run: Conformance, info: ModelInfo, user: string, tag: string): Item {
  const schemas = (run.checker.document.components as { schemas: Record<string, { examples?: unknown[] }> }).schemas;
  const example = { ...((schemas[`${info.name}Input`]?.examples?.[0] ?? {}) as Item) };
  const userFields = new Set(Object.values(info.relations).flatMap((r) => (r.kind === "belongsTo" && r.target().identity ? [r.field] : [])));
  for (const field of Object.keys(example)) {
    if (userFields.has(field)) example[field] = user;
    else if (info.keyFields.includes(field) && typeof example[field] === "string") example[field] = `${String(example[field])}-${tag}`;
  }
  return example;
}

/**
 * A child whose permission follows its parent's (`belongsTo(..., { requires })`: a comment is
 * written on a post one may read) needs that parent first: each such field gets a fresh parent,
 * made from the parent model's own example by the same caller (its parents first), so every
 * caller the plan uses may read it whenever the example is public (the sample's is a published post).
 */
async function withParents(
  run: Conformance,
  app: Application,
  routes: Route[],
  info: ModelInfo,
  input: Item,
  user: string,
  unique: () => string,
): Promise<Item> {
  const out = { ...input };
  for (const relation of Object.values(info.relations)) {
    if (relation.kind !== "belongsTo" || !relation.requires || relation.target().identity) continue;
    const parent = app.model(relation.target().name);
    const create = routes.find((r) => r.group === parent?.name && r.target.kind === "crud" && r.target.action === "create");
    const id = create && opIdOf(run, create);
    if (!parent || !create || !id || parent.keyFields.length !== 1) {
      run.failures.push(`${info.name}.${relation.field}: no way to create its parent ${relation.target().name} first`);
      continue;
    }
    const body = await withParents(run, app, routes, parent, sampleInput(run, parent, user, unique()), user, unique);
    const created = await run.call({ operationId: id, expect: 200, path: create.path, user, body });
    out[relation.field] = (created.json as Item | undefined)?.[parent.keyFields[0] as string];
  }
  return out;
}

/** Every operation of one model, generically: create, read, query, replace, patch, its operations, delete. */
async function exerciseModel(run: Conformance, app: Application, info: ModelInfo, allRoutes: Route[], unique: () => string): Promise<void> {
  const routes = allRoutes.filter((r) => r.group === info.name);
  const owner = randomUUID();
  const other = randomUUID();
  const byAction = new Map<string, { route: Route; id: string }>();
  const operations: { route: Route; id: string }[] = [];
  for (const route of routes) {
    const id = opIdOf(run, route);
    if (!id) continue;
    if (route.target.kind === "crud") byAction.set(route.target.action, { route, id });
    else operations.push({ route, id });
  }
  const input = await withParents(run, app, allRoutes, info, sampleInput(run, info, owner, unique()), owner, unique);
  const missing = Object.fromEntries(
    info.keyFields.map((f) => [f, ["number", "integer"].includes(String(info.outputSchema.properties[f]?.type)) ? 987654321 : `missing-${unique()}`]),
  );
  const itemPath = (key: Item, route: Route) => fill(route.path, key);

  const create = byAction.get("create");
  if (!create) return;
  const createCall: Call = { operationId: create.id, expect: 200, path: create.route.path, user: owner, body: input };
  await all(run, variants(run, createCall, other, undefined, readsBody(create.route)));
  const created: Result = await run.call(createCall);
  if (run.checker.statuses(create.id).includes(409)) await run.call({ ...createCall, expect: 409 });
  const record = (created.json ?? {}) as Item;
  const key = Object.fromEntries(info.keyFields.map((f) => [f, record[f]]));
  const etag = created.headers.etag ?? "";

  const get = byAction.get("get");
  if (get) {
    const path = itemPath(key, get.route);
    // Each caller's view: the owner, someone else (fields the policy hides go missing), anonymous.
    await run.call({ operationId: get.id, expect: 200, path, user: owner });
    await run.call({ operationId: get.id, expect: 200, path, user: other });
    await run.call({ operationId: get.id, expect: 200, path });
    await run.call({ operationId: get.id, expect: 304, path, user: owner, headers: { "if-none-match": etag } });
    await run.call({ operationId: get.id, expect: 404, path: itemPath(missing, get.route) });
  }

  const query = byAction.get("query");
  if (query) {
    const success: Call = { operationId: query.id, expect: 200, path: query.route.path, body: { q: "", limit: 5 } };
    await run.call(success);
    await run.call({ ...success, user: owner, body: {} });
    await run.call({ ...success, expect: 400, body: { q: "= nonsense =" } });
    await run.call({ ...success, expect: 400, body: { q: "", limit: 1_000_000 }, invalidBody: true });
    await all(run, variants(run, success, other, undefined, readsBody(query.route)));
  }

  const update = byAction.get("update");
  if (update) {
    const path = itemPath(key, update.route);
    // The path names the record: a key field in the body must repeat it, so the body leaves them out.
    const withoutKey = Object.fromEntries(Object.entries(input).filter(([f]) => !info.keyFields.includes(f)));
    const success: Call = { operationId: update.id, expect: 200, path, user: owner, body: withoutKey };
    await all(run, variants(run, success, other, itemPath(missing, update.route), readsBody(update.route)));
    await run.call({ ...success, headers: { "if-match": etag } });
  }

  const patch = byAction.get("patch");
  if (patch) {
    const path = itemPath(key, patch.route);
    const fields = Object.fromEntries(Object.entries(input).filter(([f]) => !info.keyFields.includes(f)));
    const success: Call = { operationId: patch.id, expect: 200, path, user: owner, body: fields };
    await all(run, variants(run, success, other, itemPath(missing, patch.route), readsBody(patch.route)));
    await run.call(success);
    // `null` removes an optional field; a required one cannot be removed (the document says so too).
    const required = new Set(info.inputSchema.required ?? []);
    const optional = Object.keys(fields).find((f) => !required.has(f));
    const mandatory = Object.keys(fields).find((f) => required.has(f));
    if (optional) await run.call({ ...success, body: { [optional]: null } });
    if (mandatory) await run.call({ ...success, expect: 400, body: { [mandatory]: null }, invalidBody: true });
    if (get) await run.call({ operationId: get.id, expect: 200, path, user: owner });
  }

  for (const { route, id } of operations) {
    if (route.target.kind !== "modelOperation") continue;
    const spec = run.checker.operation(id).spec as { requestBody?: { content?: Record<string, { example?: unknown }> } };
    const takesBody = readsBody(route);
    const body = takesBody ? (spec.requestBody?.content?.["application/json"]?.example ?? {}) : undefined;
    const path = route.target.isStatic ? route.path : itemPath(key, route);
    const success: Call = { operationId: id, expect: 200, path, user: owner, ...(body !== undefined ? { body } : {}) };
    await all(run, variants(run, success, other, route.target.isStatic ? undefined : itemPath(missing, route), takesBody));
    await run.call(success);
  }

  const remove = byAction.get("delete");
  if (remove) {
    const path = itemPath(key, remove.route);
    const success: Call = { operationId: remove.id, expect: 204, path, user: owner };
    await all(run, variants(run, success, other, itemPath(missing, remove.route), readsBody(remove.route)));
    await run.call(success);
  }
}

/**
 * Any method a path does not list answers 405 with `Allow` naming exactly the listed ones, and an
 * unknown path 404, both in the error format (the document's description says so).
 */
async function exerciseRouting(
  run: Conformance,
  send: (method: string, path: string) => Promise<{ status: number; headers: Record<string, string>; bodyText: string }>,
): Promise<void> {
  const errorSchema = { $ref: "#/components/schemas/Error" };
  for (const [template, item] of Object.entries(run.checker.document.paths as Record<string, Record<string, unknown>>)) {
    const listed = Object.keys(item).map((m) => m.toUpperCase());
    const unlisted = ["GET", "PUT", "POST", "PATCH", "DELETE"].find((m) => !listed.includes(m));
    if (!unlisted) continue;
    const path = template.replace(/\{[^}]+\}/g, "x");
    const answer = await send(unlisted, path);
    run.calls++;
    const allow = (answer.headers.allow ?? "")
      .split(",")
      .map((m) => m.trim())
      .filter(Boolean)
      .sort();
    if (answer.status !== 405) run.failures.push(`${unlisted} ${path}: expected 405, got ${answer.status}`);
    if (allow.join(",") !== [...listed].sort().join(","))
      run.mismatches.push(`${unlisted} ${path}: Allow '${answer.headers.allow}' is not the documented ${listed.join(", ")}`);
    run.mismatches.push(...run.checker.checkBody(`${unlisted} ${path}`, errorSchema, answer));
  }
  const unknown = await send("GET", `/no-such-route-${randomUUID()}`);
  run.calls++;
  if (unknown.status !== 404) run.failures.push(`unknown path: expected 404, got ${unknown.status}`);
  run.mismatches.push(...run.checker.checkBody("unknown path", errorSchema, unknown));
}

/** Not valid percent-encoding: a truncated three-byte UTF-8 sequence. */
const MALFORMED = "%E0%A4%A";

/**
 * Every operation with a path parameter, the parameter not valid percent-encoding: the router
 * refuses it with a 400 in the error format before the route runs (lib/http/router.ts), so each
 * such operation lists 400.
 */
async function exerciseMalformedPaths(run: Conformance, skipped: (op: Operation) => boolean): Promise<void> {
  for (const op of run.checker.operations()) {
    if (skipped(op) || !op.path.includes("{")) continue;
    await run.call({ operationId: op.operationId, expect: 400, path: op.path.replace(/\{[^}]+\}/g, MALFORMED) });
  }
}

/**
 * Calls every operation of the document: model routes generically from the route table and the
 * document's examples, service operations through their cases. An operation with neither (a route
 * added later without a case) is a failure, so new routes cannot escape the check.
 */
export async function exerciseAll(
  run: Conformance,
  app: Application,
  cases: Record<string, ServiceCase>,
  send: (method: string, path: string) => Promise<{ status: number; headers: Record<string, string>; bodyText: string }>,
  /**
   * `malformedPaths: false` where something before the function refuses such a path itself
   * (`npm start`'s HTTP server answers it with a 400 of its own): the in-process run sends them.
   */
  options: { skip?: (op: Operation) => boolean; malformedPaths?: boolean } = {},
): Promise<void> {
  const routes = deriveRoutes(app);
  const byKey = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  let counter = 0;
  const tag = randomUUID().slice(0, 8);
  const unique = () => `${tag}-${++counter}`;
  const skipped = options.skip ?? (() => false);
  for (const op of run.checker.operations()) {
    if (skipped(op)) continue;
    const route = byKey.get(`${op.method} ${op.path}`);
    const generic = route && (route.target.kind === "crud" || route.target.kind === "modelOperation");
    if (!generic && !cases[op.operationId])
      run.failures.push(`no case for operation ${op.operationId} (${op.method} ${op.path}): add one to the conformance test`);
  }
  for (const info of app.models()) await exerciseModel(run, app, info, routes, unique);
  for (const op of run.checker.operations()) {
    const make = cases[op.operationId];
    if (!make || skipped(op)) continue;
    const owner = randomUUID();
    const other = randomUUID();
    const { success, before = [], extra = [], generic = true } = await make({ run, owner, other, unique });
    const route = byKey.get(`${op.method} ${op.path}`);
    if (generic) await all(run, variants(run, success, other, undefined, route ? readsBody(route) : op.method !== "GET"));
    await all(run, before);
    await run.call(success);
    await all(run, extra);
  }
  if (options.malformedPaths !== false) await exerciseMalformedPaths(run, skipped);
  await exerciseRouting(run, send);
}
