import { Client } from "@smithy/core/client";

/**
 * Every AWS SDK call a process makes, as the IAM action it needs and the resource it names: each
 * SDK client (DynamoDB and its document client, SES v2, the API Gateway management API) sends
 * through the one `Client.prototype.send` of @smithy/core, where this records before sending. The
 * call itself goes on unchanged, to DynamoDB Local or a loopback stub.
 */
export interface Call {
  /** The IAM action, `dynamodb:PutItem`, `ses:SendEmail`, `execute-api:ManageConnections`. */
  action: string;
  /** DynamoDB: the table's name; otherwise undefined. */
  table?: string;
  /** DynamoDB: the index read, when the call names one. */
  index?: string;
}

type Input = Record<string, unknown>;

/** `GetCommand` / `GetItemCommand` -> `GetItem`: the document client's commands are the item API's. */
const ITEM_API: Record<string, string> = {
  Get: "GetItem",
  Put: "PutItem",
  Update: "UpdateItem",
  Delete: "DeleteItem",
  BatchGet: "BatchGetItem",
  BatchWrite: "BatchWriteItem",
  Query: "Query",
  Scan: "Scan",
};

/** A transaction needs the item action of each of its parts, on each part's table. */
const TRANSACT_PART: Record<string, string> = {
  Put: "PutItem",
  Update: "UpdateItem",
  Delete: "DeleteItem",
  ConditionCheck: "ConditionCheckItem",
  Get: "GetItem",
};

/** `SELECT ... FROM "table"."index" WHERE ...`: PartiQL names its table in the statement. */
function partiqlCall(statement: unknown): Call {
  const text = String(statement);
  const verb = (/^\s*(\w+)/.exec(text)?.[1] ?? "").toLowerCase();
  const from = /\bFROM\s+"([^"]+)"(?:\."([^"]+)")?/i.exec(text) ?? /\b(?:INTO|UPDATE)\s+"([^"]+)"/i.exec(text);
  const action = `dynamodb:PartiQL${verb.charAt(0).toUpperCase()}${verb.slice(1)}`;
  return { action, ...(from?.[1] ? { table: from[1] } : {}), ...(from?.[2] ? { index: from[2] } : {}) };
}

export function dynamodbCalls(command: string, input: Input): Call[] {
  const name = command.replace(/Command$/, "").replace(/Item$/, "");
  if (name === "TransactWrite" || name === "TransactGet") {
    return ((input.TransactItems ?? []) as Record<string, { TableName: string }>[]).flatMap((part) =>
      Object.entries(part).map(([kind, body]) => ({ action: `dynamodb:${TRANSACT_PART[kind] ?? kind}`, table: body.TableName })),
    );
  }
  if (name === "BatchGet" || name === "BatchWrite") {
    return Object.keys((input.RequestItems ?? {}) as Input).map((table) => ({ action: `dynamodb:${ITEM_API[name]}`, table }));
  }
  if (name === "ExecuteStatement") return [partiqlCall(input.Statement)];
  if (name === "BatchExecuteStatement") return ((input.Statements ?? []) as { Statement: string }[]).map((s) => partiqlCall(s.Statement));
  const action = `dynamodb:${ITEM_API[name] ?? name}`;
  return [
    {
      action,
      ...(typeof input.TableName === "string" ? { table: input.TableName } : {}),
      ...(typeof input.IndexName === "string" ? { index: input.IndexName } : {}),
    },
  ];
}

function callsOf(serviceId: string, command: string, input: Input): Call[] {
  if (serviceId === "DynamoDB") return dynamodbCalls(command, input);
  if (serviceId === "SESv2") return [{ action: `ses:${command.replace(/Command$/, "")}` }];
  // PostToConnection, DeleteConnection and GetConnection are all authorised as this one action.
  if (serviceId === "ApiGatewayManagementApi") return [{ action: "execute-api:ManageConnections" }];
  return [{ action: `${serviceId.toLowerCase()}:${command.replace(/Command$/, "")}` }];
}

interface Sendable {
  config: { serviceId: string };
}

/**
 * Starts recording; every call made while `current()` names a function is put down against it.
 * Returns the record and a function that stops recording.
 */
export function recordAwsCalls(current: () => string | undefined): { calls: Map<string, Call[]>; stop: () => void } {
  const calls = new Map<string, Call[]>();
  const prototype = Client.prototype as unknown as {
    send: (this: Sendable, command: { input: Input; constructor: { name: string } }, ...rest: unknown[]) => unknown;
  };
  const original = prototype.send;
  prototype.send = function send(this: Sendable, command, ...rest) {
    const owner = current();
    if (owner !== undefined) {
      const list = calls.get(owner) ?? [];
      list.push(...callsOf(this.config.serviceId, command.constructor.name, command.input ?? {}));
      calls.set(owner, list);
    }
    return original.call(this, command, ...rest);
  };
  return { calls, stop: () => void (prototype.send = original) };
}
