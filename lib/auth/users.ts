import { randomUUID } from "node:crypto";
import { Context } from "../core/context.ts";
import { isPlainObject } from "../core/sanitize.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Application } from "../core/application.ts";

/**
 * Checks a new user's fields against the identity model's input schema before anything is written:
 * only client fields pass (no `__` fields, no uuid, no roles, no verifiedAt: mass assignment is
 * refused, not silently dropped).
 */
export function checkNewUser(app: Application, info: ModelInfo, fields: Record<string, unknown>): void {
  app.validation().assert(info.inputSchema, fields);
}

/**
 * Creates the user through the domain, acting as the new identity (so its policy applies).
 * `email`: the address of the ident the account is created from, when that ident's address is
 * verified or is the ident itself (an email account): the identity model's `email`, which a
 * model declares server-owned (the sample's User) so that no client writes it afterwards.
 */
export async function createUser(
  app: Application,
  info: ModelInfo,
  fields: Record<string, unknown>,
  uuid: string = randomUUID(),
  email?: string,
): Promise<string> {
  const owned = email !== undefined && info.ownedFields.has("email") ? { email } : {};
  const client = email !== undefined && !info.ownedFields.has("email") && "email" in info.inputSchema.properties ? { ...fields, email } : fields;
  await app.domain.create(new Context({ userId: uuid }), info, client, owned);
  return uuid;
}

/** A username hint from a provider's profile or the email's local part, at least 3 characters. */
export function usernameHint(profile: Record<string, unknown> | undefined, email: string | undefined): string {
  const given = [profile?.username, profile?.preferred_username, profile?.nickname, email?.split("@")[0]].find((v) => typeof v === "string" && v.trim() !== "");
  const base = typeof given === "string" ? given.trim().slice(0, 60) : "user";
  return base.length >= 3 ? base : `${base}-${randomUUID().slice(0, 6)}`;
}

/** The fields of a user created from a provider identity (name and username from its profile). */
export function profileFields(info: ModelInfo, profile: Record<string, unknown> | undefined, email: string | undefined): Record<string, unknown> {
  const props = info.inputSchema.properties;
  const fields: Record<string, unknown> = {};
  const name = [profile?.name, profile?.given_name].find((v) => typeof v === "string" && v.trim() !== "");
  if ("username" in props) fields.username = usernameHint(profile, email);
  if ("name" in props) fields.name = typeof name === "string" ? name.trim().slice(0, 200) : (fields.username ?? "");
  if (isPlainObject(profile)) for (const [k, v] of Object.entries(profile)) if (k in props && !(k in fields) && typeof v === "string") fields[k] = v;
  return fields;
}
