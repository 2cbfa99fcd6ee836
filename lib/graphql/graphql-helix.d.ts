// graphql-helix 1.13 ships its typings as dist-esm/*.d.ts beside *.mjs, which TypeScript's NodeNext
// resolution does not pair; this declares the part of its API this face uses.
declare module "graphql-helix" {
  import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema, OperationDefinitionNode, execute, subscribe } from "graphql";

  export interface HelixRequest {
    body?: unknown;
    headers: Record<string, string | string[] | undefined>;
    method: string;
    query: unknown;
  }

  export interface FormatPayloadParams<TContext, TRootValue> {
    payload: ExecutionResult;
    context?: TContext;
    document?: DocumentNode;
    operation?: OperationDefinitionNode;
    rootValue?: TRootValue;
  }

  export interface ProcessRequestOptions<TContext, TRootValue> {
    schema: GraphQLSchema;
    request: HelixRequest;
    query?: string | DocumentNode;
    variables?: string | Record<string, unknown>;
    operationName?: string;
    parse?: (source: string) => DocumentNode;
    validate?: (schema: GraphQLSchema, document: DocumentNode) => readonly GraphQLError[];
    execute?: typeof execute;
    subscribe?: typeof subscribe;
    contextFactory?: () => TContext | Promise<TContext>;
    formatPayload?: (params: FormatPayloadParams<TContext, TRootValue>) => ExecutionResult;
  }

  export interface Response {
    type: "RESPONSE";
    status: number;
    headers: { name: string; value: string }[];
    payload: ExecutionResult;
  }

  export interface Streamed {
    type: "MULTIPART_RESPONSE" | "PUSH";
    unsubscribe: () => void;
  }

  export function processRequest<TContext, TRootValue>(options: ProcessRequestOptions<TContext, TRootValue>): Promise<Response | Streamed>;
}
