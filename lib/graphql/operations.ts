import type { GraphQLFieldConfig, GraphQLFieldConfigArgumentMap } from "graphql";
import type { Application, ServiceEntry } from "../core/application.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { OperationDefinition } from "../core/operation.ts";
import type { GraphQLContext } from "./context.ts";
import type { ModelTypes } from "./model-types.ts";
import { modelOperationField, pascal, serviceOperationField } from "./names.ts";

type Field = GraphQLFieldConfig<unknown, GraphQLContext>;
type Args = Record<string, unknown>;

export interface OperationField {
  name: string;
  /** An operation whose REST method is GET reads: a Query field; any other is a Mutation field. */
  root: "query" | "mutation";
  field: Field;
}

function rootOf(operation: OperationDefinition): "query" | "mutation" {
  return operation.rest !== false && operation.rest?.method === "GET" ? "query" : "mutation";
}

/** Parameters as arguments, typed from the operation's `input` schema; an undeclared result is Any. */
function signature(operation: OperationDefinition, fieldName: string, types: ModelTypes) {
  const owner = pascal(fieldName);
  const params = operation.input ? types.converter.inputFields(operation.input.properties, owner) : {};
  const args: GraphQLFieldConfigArgumentMap = { ...params };
  return { args, params: Object.keys(params), type: types.converter.output(operation.output ?? {}, `${owner}Result`) };
}

function parameters(args: Args, names: string[]): Args {
  return Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
}

/** `publishPost(slug, destination)`: key arguments (instance operations only), then parameters. */
function modelOperation(info: ModelInfo, operation: OperationDefinition, types: ModelTypes): OperationField {
  const name = modelOperationField(operation.name, info);
  const { args, params, type } = signature(operation, name, types);
  const keyArgs = operation.isStatic ? {} : types.keyArgs(info);
  const clash = params.find((p) => p in keyArgs);
  if (clash) throw new Error(`GraphQL: parameter '${clash}' of ${info.name}.${operation.name} has the name of a key field`);
  return {
    name,
    root: rootOf(operation),
    field: {
      type,
      args: { ...keyArgs, ...args },
      resolve: (_source, given: Args, { app, ctx }) => {
        const key = operation.isStatic ? undefined : Object.fromEntries(info.keyFields.map((f) => [f, given[f]]));
        return app.domain.invoke(ctx, info, operation.name, key, parameters(given, params));
      },
    },
  };
}

function serviceOperation(entry: ServiceEntry, operation: OperationDefinition, types: ModelTypes): OperationField {
  const name = serviceOperationField(entry.name, operation.name);
  const { args, params, type } = signature(operation, name, types);
  return {
    name,
    root: rootOf(operation),
    field: {
      type,
      args,
      resolve: (_source, given: Args, { app, ctx }) => app.domain.invokeService(ctx, entry, operation.name, parameters(given, params)),
    },
  };
}

/** Every `@Operation` of models and services, unless declared with `graphql: false`. */
export function operationFields(app: Application, types: ModelTypes): OperationField[] {
  const fields: OperationField[] = [];
  for (const info of app.models()) {
    for (const operation of info.operations) if (operation.graphql !== false) fields.push(modelOperation(info, operation, types));
  }
  for (const entry of app.services()) {
    for (const operation of entry.operations) if (operation.graphql !== false) fields.push(serviceOperation(entry, operation, types));
  }
  return fields;
}
