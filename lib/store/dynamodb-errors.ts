import { ConflictError, NotFoundError, PreconditionFailedError, ThrottledError, UnavailableError, ValidationError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import type { Item } from "./repository.ts";

const THROTTLING = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded", "LimitExceededException"]);

export function isConditionFailure(error: unknown): error is Error & { Item?: Item } {
  return error instanceof Error && error.name === "ConditionalCheckFailedException";
}

/**
 * A failed guard tells apart "not there" from "changed by someone else" through the old item that
 * DynamoDB returns with the failure (ReturnValuesOnConditionCheckFailure).
 */
export function guardFailure(error: Error & { Item?: Item }, kind: "create" | "update"): Error {
  if (kind === "create") return new ConflictError("A record with this key already exists");
  return error.Item ? new PreconditionFailedError() : new NotFoundError();
}

/** What the SDK calls a timeout or a dropped connection (its own retries already spent). */
const UNREACHABLE = new Set([
  "TimeoutError",
  "RequestTimeout",
  "RequestTimeoutException",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "InternalServerError",
  "ServiceUnavailable",
]);

/**
 * DynamoDB's words for a Query on an index that is not ACTIVE: "The table does not have the
 * specified index" (not created yet, or deleted), "Cannot read from backfilling global secondary
 * index" (CREATING). Building takes minutes to hours: a client retries after a minute.
 */
const INDEX_NOT_READY = /does not have the specified index|backfilling global secondary index/i;
export const INDEX_RETRY_AFTER_SECONDS = 60;

/**
 * The SDK already retried with backoff; what is still throttled becomes a 429 for the client, a
 * database that timed out or could not be reached a 503, both with Retry-After.
 */
export function mapDynamoError(error: unknown): unknown {
  if (error instanceof Error && THROTTLING.has(error.name)) return new ThrottledError(1, "The database is busy, retry shortly");
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && (UNREACHABLE.has(error.name) || (typeof code === "string" && UNREACHABLE.has(code)))) {
    return new UnavailableError(2, "The database did not answer in time, retry shortly");
  }
  // The body limit (1 MiB) is above DynamoDB's 400 KB item limit: that is the client's record, too big.
  if (error instanceof Error && error.name === "ValidationException" && /item size/i.test(error.message)) {
    return new ValidationError([{ path: "/", message: "the record is larger than the 400 KB a record may hold" }], "Record too large");
  }
  // An index a deploy is still building (CREATING, backfilling) or has not created yet (a staged
  // deploy: docs/changing-a-deployed-application.md): the request is sound, the table not ready.
  if (error instanceof Error && error.name === "ValidationException" && INDEX_NOT_READY.test(error.message)) {
    log.warn("DynamoDB has no ACTIVE index for this request yet", { error: error.message });
    return new UnavailableError(INDEX_RETRY_AFTER_SECONDS, "An index this request needs is still being built, retry later");
  }
  // Every other refusal of the request's shape is a limit the checks before the call did not
  // foresee: still the client's input, never a 500. DynamoDB's text names tables, so it is logged.
  if (error instanceof Error && error.name === "ValidationException") {
    log.warn("DynamoDB refused a request as invalid", { error: error.message });
    return new ValidationError([{ path: "/", message: "the request exceeds a limit of the database" }], "Request refused by the database");
  }
  return error;
}
