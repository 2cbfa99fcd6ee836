import type { Context, Decision } from "../../lib/index.ts";

/** Shared wording of the sample application's permission rules. */
export function signedIn(ctx: Context): Decision {
  return ctx.getCurrentUserId() !== undefined ? true : "sign in first";
}

export function ownedBy(ctx: Context, owner: unknown): Decision {
  const user = ctx.getCurrentUserId();
  if (user === undefined) return "sign in first";
  return owner === user ? true : "only the owner may do this";
}
