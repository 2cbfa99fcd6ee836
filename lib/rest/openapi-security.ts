import { Context } from "../core/context.ts";
import type { Action, Related } from "../core/model.ts";
import type { ModelInfo } from "../core/model-info.ts";
import { instantiate, type Item } from "../core/records.ts";
import type { Service } from "../core/service.ts";
import { choicesOf, exampleOf } from "./openapi-examples.ts";

type Json = Record<string, unknown>;

/** The credentials of lib/auth/CONTRACT.md: a 15-minute access JWT, or the `session` cookie. */
export const SECURITY_SCHEMES: Json = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The access token of a login or refresh answer (`access_token`), valid 15 minutes: `Authorization: Bearer <token>`.",
  },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "session",
    description: "The HttpOnly session cookie a login sets (browsers send it by themselves).",
  },
};

const SIGNED_IN: Json[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/** What a policy does with an anonymous caller and with a signed-in one, over sample records. */
export interface PolicyProbe {
  /** Some record lets an anonymous caller through: credentials are optional. */
  anonymousMayPass: boolean;
  /** Some record refuses an anonymous caller (401 where a refusal is not hidden as a 404). */
  anonymousMayFail: boolean;
  /** Some record refuses a signed-in caller who is not its owner (403). */
  userMayFail: boolean;
}

/** A signed-in caller that owns none of the sample records. */
const PROBE_USER = "openapi-probe-user";
/** Bounds the sample records per model: policies turn on a handful of enum fields at most. */
const MAX_VARIANTS = 64;

/** The model's example record, once per combination of the values its few-valued fields may take. */
function sampleRecords(info: ModelInfo): Item[] {
  let records: Item[] = [exampleOf(info.outputSchema) as Item];
  for (const [field, schema] of Object.entries(info.outputSchema.properties)) {
    const choices = choicesOf(schema);
    if (!choices || records.length * choices.length > MAX_VARIANTS) continue;
    records = records.flatMap((record) => choices.map((value) => ({ ...record, [field]: value })));
  }
  return records;
}

/** A create's candidate as the domain builds it: server-set user fields take the caller's id. */
/** What a probed policy reads of related records: nothing is known of them. */
const NO_RELATED: Related = { get: () => Promise.resolve(undefined) };

function asCreatedBy(info: ModelInfo, record: Item, userId: string | undefined): Item {
  const candidate: Item = { ...record };
  if (info.generatedKey && info.cls.identity) candidate.uuid = userId;
  for (const relation of Object.values(info.relations)) {
    if (relation.kind === "belongsTo" && relation.fromCurrentUser) candidate[relation.field] = userId;
  }
  return candidate;
}

/**
 * Runs the model's own `canAct` (the one the domain runs) for an anonymous and a signed-in caller
 * over the sample records: the document's security and its 401/403 come from the policy itself,
 * so a policy change shows in the contract without anyone editing it.
 */
export function probeModel(info: ModelInfo, action: Action): PolicyProbe {
  const anonymous = Context.anonymous("openapi");
  const user = new Context({ userId: PROBE_USER, requestId: "openapi" });
  const records = sampleRecords(info);
  // A policy that reads related records answers later (a promise): no sample says what those
  // records hold, so such an answer may pass and may fail.
  let pending = false;
  const pass = (ctx: Context, record: Item): boolean => {
    try {
      const decision = instantiate(info, action === "create" ? asCreatedBy(info, record, ctx.getCurrentUserId()) : record).canAct(ctx, action, NO_RELATED);
      if (decision instanceof Promise) {
        decision.catch(() => undefined);
        pending = true;
        return false;
      }
      return decision === true;
    } catch {
      // A policy that cannot judge a sample record is counted as refusing: the document then lists more, never less.
      return false;
    }
  };
  // A parent the model delegates this action to (`belongsTo(..., { requires })`) may refuse what
  // the model's own policy allows: no sample parent can say it will not, so count it as refusing.
  const delegates = typeof action === "string" && Object.values(info.relations).some((r) => r.kind === "belongsTo" && r.requires?.[action] !== undefined);
  const anonymousPasses = records.some((r) => pass(anonymous, r));
  const anonymousFails = records.some((r) => !pass(anonymous, r));
  const userFails = records.some((r) => !pass(user, r));
  return {
    anonymousMayPass: anonymousPasses || pending,
    anonymousMayFail: delegates || anonymousFails,
    userMayFail: delegates || userFails,
  };
}

/** A service's policy sees no record: one anonymous and one signed-in call tell it all. */
export function probeService(service: Service<unknown>, operation: string): PolicyProbe {
  const anonymous = service.canAct(Context.anonymous("openapi"), operation) === true;
  const user = service.canAct(new Context({ userId: PROBE_USER, requestId: "openapi" }), operation) === true;
  return { anonymousMayPass: anonymous, anonymousMayFail: !anonymous, userMayFail: !user };
}

/** OpenAPI's security requirement: `{}` among the alternatives makes credentials optional. */
export function securityOf(probe: PolicyProbe): Json[] {
  return probe.anonymousMayPass ? [{}, ...SIGNED_IN] : SIGNED_IN;
}
