import type { Context } from "./context.ts";
import { NotFoundError } from "./errors.ts";
import type { ModelInfo } from "./model-info.ts";
import type { OperationDefinition } from "./operation.ts";
import { authorize, type Permissions } from "./permission.ts";
import { instantiate, parseKey, requireObject, type Item } from "./records.ts";
import type { Repository } from "./repository.ts";
import { stripServerOnly } from "./sanitize.ts";
import type { Service } from "./service.ts";
import type { Validation } from "./validation.ts";

/** What an operation method receives besides its parameters. */
export interface OperationCall {
  ctx: Context;
}

type OperationMethod = (params: Item, call: OperationCall) => unknown;

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

export async function invokeModelOperation(
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
  let target: object;
  if (operation.isStatic) {
    authorize(instantiate(info, {}).canAct(ctx, { operation: operation.name }), ctx);
    target = info.cls;
  } else {
    const key = parseKey(info, rawKey ?? {});
    const item = await permissions.assertReadable(info, await repository.get(key));
    await permissions.authorize(info, { operation: operation.name }, [item]);
    target = instantiate(info, item);
  }
  const params = parameters(validation, operation, input);
  const method = (target as Record<string, unknown>)[operation.name] as OperationMethod;
  return method.call(target, params, { ctx });
}

export async function invokeServiceOperation(
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
  return method.call(service, params, { ctx });
}
