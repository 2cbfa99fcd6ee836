import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { NotFoundError, PreconditionFailedError } from "../core/errors.ts";
import type { TableShape } from "../core/model-info.ts";
import { VERSION_FIELD } from "../core/schema.ts";
import { guardFailure, isConditionFailure, mapDynamoError } from "./dynamodb-errors.ts";
import { findByField, type KeySource } from "./dynamodb-partiql.ts";
import { keyFieldsOf, pickKey } from "./keys.ts";
import type { Item, Key, KeyValue, ListRequest, Page, Repository, WriteOptions } from "./repository.ts";

const BATCH_GET_MAX = 100;
const REPLACE_ATTEMPTS = 5;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A DynamoDB table read and written by key: what every function needs, without the listing that
 * only some of them run (DynamoRepository below extends it with `list` and `listEach`).
 */
export class DynamoRecords implements Repository {
  constructor(
    /** Public so that code needing more than the contract (v3's one-transaction key move) uses the same table. */
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly table: TableShape,
  ) {}

  private guard(options?: WriteOptions): { condition: string; names: Record<string, string>; values: Record<string, unknown> } {
    const names: Record<string, string> = { "#k": this.table.key.hash };
    const values: Record<string, unknown> = {};
    const conditions = ["attribute_exists(#k)"];
    if (options?.expectedVersion !== undefined) {
      names["#ver"] = VERSION_FIELD;
      values[":expected"] = options.expectedVersion;
      // Version 0 is also a row without an envelope (no `__version` at all).
      conditions.push(options.expectedVersion === 0 ? "(attribute_not_exists(#ver) OR #ver = :expected)" : "#ver = :expected");
    }
    Object.entries(options?.expectedFields ?? {}).forEach(([field, value], i) => {
      names[`#e${i}`] = field;
      if (value === undefined) conditions.push(`attribute_not_exists(#e${i})`);
      else {
        values[`:e${i}`] = value;
        conditions.push(`#e${i} = :e${i}`);
      }
    });
    return { condition: conditions.join(" AND "), names, values };
  }

  protected async run<T>(work: () => Promise<T>, kind: "create" | "update" = "update"): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isConditionFailure(error)) throw guardFailure(error, kind);
      throw mapDynamoError(error);
    }
  }

  async get(key: Key): Promise<Item | undefined> {
    return this.run(async () => {
      const result = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
      return result.Item;
    });
  }

  async getMany(keys: Key[]): Promise<Item[]> {
    const found: Item[] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      let pending: Key[] | undefined = keys.slice(i, i + BATCH_GET_MAX);
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const request: Key[] = pending;
        const result = await this.run(() =>
          this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: request, ConsistentRead: true } } })),
        );
        found.push(...(result.Responses?.[this.tableName] ?? []));
        pending = result.UnprocessedKeys?.[this.tableName]?.Keys as Key[] | undefined;
      }
    }
    return found;
  }

  /** PartiQL `IN` lookups on a partition key of the table or an index (dynamodb-partiql.ts). */
  findByField(field: string, values: KeyValue[]): Promise<Item[]> {
    return findByField(this.keySource(), field, values);
  }

  /** What the key reads of many partitions need of this repository. */
  protected keySource(): KeySource {
    return { client: this.client, tableName: this.tableName, table: this.table, run: (work) => this.run(work) };
  }

  async create(item: Item): Promise<Item> {
    const stored = { ...item, [VERSION_FIELD]: 1 };
    await this.run(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: stored,
            ConditionExpression: "attribute_not_exists(#k)",
            ExpressionAttributeNames: { "#k": this.table.key.hash },
          }),
        ),
      "create",
    );
    return stored;
  }

  /**
   * A put conditional on the version it replaces: with `expectedVersion` once, without it re-read
   * and retried so that a concurrent write is never silently overwritten by a stale base.
   */
  async replace(key: Key, item: Item, options?: WriteOptions): Promise<Item> {
    for (let attempt = 0; ; attempt++) {
      const base = options?.expectedVersion ?? ((await this.get(key))?.[VERSION_FIELD] as number | undefined);
      const stored = { ...item, ...key, [VERSION_FIELD]: (base ?? 0) + 1 };
      const guard = this.guard({ expectedVersion: base ?? 0 });
      try {
        await this.run(() =>
          this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: stored,
              ConditionExpression: guard.condition,
              ExpressionAttributeNames: guard.names,
              ExpressionAttributeValues: guard.values,
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            }),
          ),
        );
        return stored;
      } catch (error) {
        const retry = error instanceof PreconditionFailedError && options?.expectedVersion === undefined && attempt < REPLACE_ATTEMPTS;
        if (!retry) throw error;
      }
    }
  }

  async patch(key: Key, set: Item, remove: string[], options?: WriteOptions): Promise<Item> {
    const guard = this.guard(options);
    const names: Record<string, string> = { ...guard.names, "#ver": VERSION_FIELD };
    const values: Record<string, unknown> = { ...guard.values, ":one": 1 };
    const keyFields = new Set(keyFieldsOf(this.table));
    const assignments: string[] = [];
    const removals: string[] = [];
    let n = 0;
    for (const [field, value] of Object.entries(set)) {
      if (keyFields.has(field) || field === VERSION_FIELD || value === undefined) continue;
      names[`#f${n}`] = field;
      values[`:f${n}`] = value;
      assignments.push(`#f${n} = :f${n}`);
      n++;
    }
    for (const field of remove) {
      if (keyFields.has(field)) continue;
      names[`#f${n}`] = field;
      removals.push(`#f${n}`);
      n++;
    }
    // A row written by another program (a v3 row: no envelope) has no version yet: it counts as 0.
    values[":zero"] = 0;
    assignments.push("#ver = if_not_exists(#ver, :zero) + :one");
    const update = `SET ${assignments.join(", ")}${removals.length > 0 ? ` REMOVE ${removals.join(", ")}` : ""}`;
    const result = await this.run(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: update,
          ConditionExpression: guard.condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: "ALL_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      ),
    );
    return result.Attributes as Item;
  }

  async adjust(key: Key, field: string, by: number, max: number): Promise<number | undefined> {
    // Only the bound `by` moves toward can be passed: a rise is checked against `max`, a fall against 0.
    const bound = by >= 0 ? { ":bound": max - by, test: "#c <= :bound" } : { ":bound": -by, test: "#c >= :bound" };
    const values: Record<string, unknown> = { ":by": by, ":zero": 0, ":one": 1, ":bound": bound[":bound"] };
    // An absent counter is 0: it passes exactly when `by` itself is within the bounds.
    const absent = by >= 0 && by <= max ? "attribute_not_exists(#c) OR " : "";
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: "SET #c = if_not_exists(#c, :zero) + :by, #ver = if_not_exists(#ver, :zero) + :one",
          ConditionExpression: `attribute_exists(#k) AND (${absent}${bound.test})`,
          ExpressionAttributeNames: { "#k": this.table.key.hash, "#c": field, "#ver": VERSION_FIELD },
          ExpressionAttributeValues: values,
          ReturnValues: "UPDATED_NEW",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
      return result.Attributes?.[field] as number;
    } catch (error) {
      if (!isConditionFailure(error)) throw mapDynamoError(error);
      if (!error.Item) throw new NotFoundError();
      return undefined;
    }
  }

  async delete(key: Key, options?: WriteOptions): Promise<Item> {
    const guard = this.guard(options);
    const result = await this.run(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key,
          ConditionExpression: guard.condition,
          ExpressionAttributeNames: guard.names,
          ...(Object.keys(guard.values).length > 0 ? { ExpressionAttributeValues: guard.values } : {}),
          ReturnValues: "ALL_OLD",
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      ),
    );
    return result.Attributes as Item;
  }

  /**
   * Listing needs the query planner, which the functions that only read and write by key (the
   * record read, the session routes) do not carry: DynamoRepository (dynamodb.ts) lists.
   */
  list(_request: ListRequest): Promise<Page> {
    return Promise.reject(new Error(`the store of '${this.tableName}' reads by key only: listing needs DynamoRepository (lib/store/dynamodb.ts)`));
  }

  async clear(): Promise<void> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey }));
      await Promise.all((page.Items ?? []).map((item) => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: pickKey(this.table, item) }))));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}
