import { composeApplication, type Composed } from "../core/compose.ts";
import { httpHandler } from "../http/handler.ts";
import { authDispatcher } from "./routes/table.ts";
import { sessionRoutes } from "./routes/session-routes.ts";

/**
 * The session routes' parts (keys, providers, me, refresh, logout, idents, each its own function
 * with per-route packaging): none sends mail, checks a password, runs the Idp protocol or validates
 * model input, and none lists (a user's sessions and idents are read by key): its secrets and a
 * key-only store (lib/store/select-records.ts).
 */
export type SessionFunctionParts = Composed<"secrets" | "store">;

export async function sessionRoutesFunction(parts: SessionFunctionParts) {
  return httpHandler("auth", authDispatcher(await composeApplication("session routes", parts, ["secrets", "store"]), sessionRoutes()));
}
