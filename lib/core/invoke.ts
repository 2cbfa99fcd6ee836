import { recordsOf, selfRecord, type InstanceCall, type ModelResolver, type OperationCall } from "./acting.ts";
import type { Context } from "./context.ts";
import type { Domain } from "./domain.ts";
import { NotFoundError } from "./errors.ts";
import type { ModelInfo } from "./model-info.ts";
import type { OperationDefinition } from "./operation.ts";
import { authorize, type Permissions } from "./permission.ts";
import { instantiate, parseKey, requireObject, versionOf, type Item } from "./records.ts";
import type { Repository } from "./repository.ts";
import { stripServerOnly } from "./sanitize.ts";
import type { Service } from "./service.ts";
import type { Validation } from "./validation.ts";

export type { InstanceCall, OperationCall } from "./acting.ts";

type OperationMethod = (params: Item, call: OperationCall | InstanceCall) => unknown;

/** Where an operation acts: the domain, as its caller, with the application's models. */
export interface OperationScope {
  domain: Domain;
  resolve: ModelResolver;
}

function findOperation(operations: OperationDefinition[], name: string, owner: string): OperationDefinition {
  const operation = operations.find((o) => o.name.toLowerCase() === name.toLowerCase());
  if (!operation) throw new NotFoundError(`${owner} has no operation '${name}'`);
  return operation;
}

/** Parameters pass the same stripping and validation as model input: no `__` keys, no unknown names. */
function parameters(validation: Validation, operation: OperationDefinition, input: unknown): Item {
  const params = stripServerOnly(input === undefined || input === null ? {} : requireObject(input));
  const schema = operation.input ? { ...operation.input, additionalProperties: false } : { type: "object", properties: {}, additionalProperties: false };
  validation.assert(schema, params, "Invalid operation parameters");
  return params;
}

/**
 * An instance operation runs on the record it was allowed on (`this`, as stored), with `self`, that
 * record bound to the caller, and `records`, every model as the caller: what it writes goes through
 * the domain like a client's write, and a refusal reaches the caller as it is.
 */
export async function invokeModelOperation(
  scope: OperationScope,
  validation: Validation,
  ctx: Context,
  info: ModelInfo,
  repository: Repository,
  permissions: Permissions,
  name: string,
  rawKey: Record<string, unknown> | undefined,
  input: unknown,
): Promise<unknown> {
  const operation = findOperation(info.operations, name, info.name);
  const records = recordsOf(scope.domain, ctx, scope.resolve);
  let target: object;
  let call: OperationCall | InstanceCall;
  if (operation.isStatic) {
    // A static operation's policy has no record: it is asked on an empty one (no related records).
    await permissions.authorize(info, { operation: operation.name }, [{}]);
    target = info.cls;
    call = { ctx, records };
  } else {
    const key = parseKey(info, rawKey ?? {});
    const item = await permissions.assertReadable(info, await repository.get(key));
    await permissions.authorize(info, { operation: operation.name }, [item]);
    const instance = instantiate(info, item);
    target = instance;
    call = { ctx, records, self: selfRecord(scope.domain, ctx, info, scope.resolve, instance, key, versionOf(item)) };
  }
  const params = parameters(validation, operation, input);
  const method = (target as Record<string, unknown>)[operation.name] as OperationMethod;
  return method.call(target, params, call);
}

export async function invokeServiceOperation(
  scope: OperationScope,
  validation: Validation,
  ctx: Context,
  service: Service<unknown>,
  name: string,
  input: unknown,
  operations: OperationDefinition[],
): Promise<unknown> {
  const operation = findOperation(operations, name, `service '${service.name}'`);
  authorize(service.canAct(ctx, operation.name), ctx);
  const params = parameters(validation, operation, input);
  const method = (service as unknown as Record<string, unknown>)[operation.name] as OperationMethod;
  return method.call(service, params, { ctx, records: recordsOf(scope.domain, ctx, scope.resolve) });
}
