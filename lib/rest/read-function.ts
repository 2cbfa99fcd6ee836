import { composeApplication, type Composed } from "../core/compose.ts";
import { readHandler } from "./read-handler.ts";

/**
 * The record read's parts (`GET /posts/{slug}`, per-route packaging): a store that reads by key
 * (lib/store/select-records.ts). It validates no input, lists nothing and reads no secret (it
 * verifies access tokens with the public key set), so none of those is in its bundle.
 */
export type RecordReadFunctionParts = Composed<"store">;

export async function recordReadFunction(parts: RecordReadFunctionParts) {
  return readHandler(await composeApplication("record read", parts, ["store"]));
}
