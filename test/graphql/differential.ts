import { execute, getOperationAST, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { CompiledOperation } from "../../lib/graphql/execution/compiled.ts";

export interface Outcome {
  /** The whole result as JSON: data, and errors with message, locations, path and extensions. */
  json: string;
  /** Whether our executor ran a plan (false: it declined, and the caller would run graphql-js). */
  planned: boolean;
}

export interface Runs {
  graphqlJs: Outcome;
  compiled: Outcome;
}

/**
 * One valid document run by graphql-js's `execute` and by our executor, each with a context of its
 * own (`context()` is called once per run, after `before()`), one after the other.
 */
const cached = new WeakMap<GraphQLSchema, Map<string, { document: DocumentNode; plans: Map<string, CompiledOperation> }>>();

/** Documents and their compiled operations kept per schema, as the endpoint keeps them: later runs reuse the plans. */
function prepared(schema: GraphQLSchema, source: string): { document: DocumentNode; plans: Map<string, CompiledOperation> } {
  let bySource = cached.get(schema);
  if (!bySource) cached.set(schema, (bySource = new Map()));
  let entry = bySource.get(source);
  if (!entry) {
    const document = parse(source);
    const invalid = validate(schema, document);
    if (invalid.length > 0) throw new Error(`invalid test document: ${invalid.map((e) => e.message).join("; ")}`);
    bySource.set(source, (entry = { document, plans: new Map() }));
  }
  return entry;
}

/**
 * Work a result no longer waits for (the siblings of a field that nulled its parent) still runs,
 * in both executors: it is let finish before the next run starts, so that logs do not interleave.
 */
async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export async function runBoth(
  schema: GraphQLSchema,
  source: string,
  options: { variables?: Record<string, unknown>; operationName?: string; context: () => unknown; before?: () => Promise<void> | void },
): Promise<Runs> {
  const { document, plans } = prepared(schema, source);
  const operation = getOperationAST(document, options.operationName);
  if (!operation) throw new Error("no operation");
  const key = options.operationName ?? "";
  const compiled = plans.get(key) ?? new CompiledOperation(schema, document, operation);
  plans.set(key, compiled);
  await options.before?.();
  const reference: ExecutionResult = await execute({
    schema,
    document,
    contextValue: options.context(),
    ...(options.variables ? { variableValues: options.variables } : {}),
    ...(options.operationName ? { operationName: options.operationName } : {}),
  });
  await settled();
  await options.before?.();
  const ours = compiled.execute(options.context(), options.variables);
  const result = ours === undefined ? reference : await ours;
  await settled();
  return { graphqlJs: { json: JSON.stringify(reference), planned: false }, compiled: { json: JSON.stringify(result), planned: ours !== undefined } };
}
