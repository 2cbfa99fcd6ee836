import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What one request cost the database, for its log line: the store's client adds to the cost of
 * the request it runs in (found through AsyncLocalStorage, so no call site passes it along).
 */
export interface RequestCost {
  /** DynamoDB calls sent (retries by the SDK count once). */
  dynamodbCalls: number;
  /** Capacity units DynamoDB reported (ReturnConsumedCapacity: TOTAL), reads and writes together. */
  consumedCapacity: number;
  /** Items DynamoDB evaluated: a Query's or Scan's ScannedCount, else the items returned. */
  itemsRead: number;
}

const current = new AsyncLocalStorage<RequestCost>();

export function newCost(): RequestCost {
  return { dynamodbCalls: 0, consumedCapacity: 0, itemsRead: 0 };
}

/** Runs `work` with `cost` as the cost every store call inside it adds to. */
export function withCost<T>(cost: RequestCost, work: () => Promise<T>): Promise<T> {
  return current.run(cost, work);
}

/** The cost of the request this code runs for, if one is measured. */
export function currentCost(): RequestCost | undefined {
  return current.getStore();
}
