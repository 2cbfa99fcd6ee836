import { composeApplication, type Composed } from "../core/compose.ts";
import { restHandler } from "./handler.ts";

/** The REST function's parts: it reads its secrets, stores, validates input and lists. */
export type RestFunctionParts = Composed<"secrets" | "store" | "validators" | "listing">;

/** The REST function (every derived route but the record read): its handler, from what it is made of. */
export async function restFunction(parts: RestFunctionParts) {
  return restHandler(await composeApplication("REST", parts, ["secrets", "store", "validators", "listing"]));
}
