import { GraphQLError, locatedError, type ExecutionResult } from "graphql";
import { argumentsOf, type ArgumentSlots } from "./arguments.ts";
import { CollectedErrors, pathToArray, type Path } from "./errors.ts";
import { ResolveInfo, type RunScope } from "./info.ts";
import type { FieldPlan, OperationPlan, ValuePlan } from "./plan.ts";

type Data = Record<string, unknown>;
type Methods = Record<string, ((...args: unknown[]) => unknown) | undefined>;

function isPromise<T = unknown>(value: unknown): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

function isIterableObject(value: unknown): value is Iterable<unknown> {
  return typeof value === "object" && typeof (value as { [Symbol.iterator]?: unknown } | null)?.[Symbol.iterator] === "function";
}

/** graphql-js's `promiseForObject`: the same keys, in order, once every value has settled. */
function promiseForObject(object: Data): Promise<Data> {
  const keys = Object.keys(object);
  return Promise.all(Object.values(object)).then((values) => {
    const resolved: Data = {};
    for (let i = 0; i < keys.length; i++) resolved[keys[i] as string] = values[i];
    return resolved;
  });
}

/**
 * One execution of a plan, step for step what graphql-js's `execute` does for the same operation
 * (the same promises at the same points, so batched loads and the order of errors are the same),
 * minus the work the plan did once: collecting fields, looking definitions up, coercing literal
 * arguments, building a full resolve info object per call (ours gives its fields on demand).
 */
export class Run implements RunScope {
  private readonly collected = new CollectedErrors();
  private readonly slots: ArgumentSlots;

  constructor(
    readonly plan: OperationPlan,
    private readonly context: unknown,
    readonly variables: Record<string, unknown>,
    readonly rootValue: unknown,
  ) {
    this.slots = plan.slots > 0 ? new Array<undefined>(plan.slots) : [];
  }

  execute(): ExecutionResult | Promise<ExecutionResult> {
    try {
      const data = this.plan.serial ? this.serially(this.plan.fields, this.rootValue) : this.fields(this.plan.fields, this.rootValue, undefined);
      if (isPromise(data)) {
        return data.then(
          (resolved) => this.response(resolved),
          (error: unknown) => {
            this.collected.add(error as GraphQLError, undefined);
            return this.response(null);
          },
        );
      }
      return this.response(data);
    } catch (error) {
      this.collected.add(error as GraphQLError, undefined);
      return this.response(null);
    }
  }

  private response(data: Data | null): ExecutionResult {
    const errors = this.collected.errors;
    return errors.length === 0 ? { data } : { errors, data };
  }

  /** A mutation's root fields, each started once the one before has settled. */
  private serially(fields: readonly FieldPlan[], source: unknown): Data | Promise<Data> {
    let accumulator: Data | Promise<Data> = {};
    for (const field of fields) {
      const step = (results: Data): Data | Promise<Data> => {
        const result = this.field(field, source, undefined);
        if (isPromise(result)) {
          return result.then((resolved) => {
            results[field.responseName] = resolved;
            return results;
          });
        }
        results[field.responseName] = result;
        return results;
      };
      accumulator = isPromise<Data>(accumulator) ? accumulator.then(step) : step(accumulator);
    }
    return accumulator;
  }

  private fields(fields: readonly FieldPlan[], source: unknown, path: Path | undefined): Data | Promise<Data> {
    const results: Data = {};
    // The fields still resolving, by response name: their values go into `results` in place.
    let pending: Promise<unknown>[] | undefined;
    let pendingNames: string[] | undefined;
    try {
      for (const field of fields) {
        const result = this.field(field, source, path);
        results[field.responseName] = result;
        if (isPromise(result)) {
          (pending ??= []).push(result);
          (pendingNames ??= []).push(field.responseName);
        }
      }
    } catch (error) {
      // The other fields' promises may reject too: they settle before the error goes up.
      if (pending) {
        return promiseForObject(results).finally(() => {
          throw error;
        });
      }
      throw error;
    }
    if (!pending) return results;
    // As graphql-js's promiseForObject (settled when the last value is), without copying the object.
    const names = pendingNames as string[];
    return Promise.all(pending).then((values) => {
      for (let i = 0; i < values.length; i++) results[names[i] as string] = values[i];
      return results;
    });
  }

  private field(field: FieldPlan, source: unknown, parent: Path | undefined): unknown {
    if (field.constant !== undefined) return field.constant;
    if (field.plainLeaf) return this.plainLeaf(field, source, parent);
    const path: Path = { prev: parent, key: field.responseName, typename: field.parentType.name };
    try {
      const args = argumentsOf(field, this.slots, this.variables);
      const result = field.resolve ? field.resolve(source, args, this.context, new ResolveInfo(field, this, path)) : this.property(field, source, args, path);
      return this.settle(field, path, result);
    } catch (raw) {
      return this.fail(raw, field, field.nonNull, path);
    }
  }

  /** A resolver's result completed, an error of the completion handled as the field's. */
  private settle(field: FieldPlan, path: Path, result: unknown): unknown {
    const completed = isPromise(result) ? result.then((resolved) => this.complete(field.value, field, path, resolved)) : this.complete(field.value, field, path, result);
    if (isPromise(completed)) return completed.then(undefined, (raw: unknown) => this.fail(raw, field, field.nonNull, path));
    return completed;
  }

  /**
   * A leaf with graphql-js's default resolver and fixed arguments, the most common field: the same
   * steps, but its path is made only when an error or a function property needs it.
   */
  private plainLeaf(field: FieldPlan, source: unknown, parent: Path | undefined): unknown {
    let path: Path | undefined;
    try {
      const value = (typeof source === "object" && source !== null) || typeof source === "function" ? (source as Data)[field.fieldName] : undefined;
      if (typeof value === "function" || isPromise(value)) {
        path = { prev: parent, key: field.responseName, typename: field.parentType.name };
        const args = argumentsOf(field, this.slots, this.variables);
        // Read again to call it, as graphql-js's default resolver does.
        return this.settle(field, path, typeof value === "function" ? (source as Methods)[field.fieldName]?.(args, this.context, new ResolveInfo(field, this, path)) : value);
      }
      return this.complete(field.value, field, parent, value);
    } catch (raw) {
      return this.fail(raw, field, field.nonNull, path ?? { prev: parent, key: field.responseName, typename: field.parentType.name });
    }
  }

  /** graphql-js's default resolver: the source's property, called when it is a function. */
  private property(field: FieldPlan, source: unknown, args: Readonly<Record<string, unknown>>, path: Path): unknown {
    if ((typeof source !== "object" || source === null) && typeof source !== "function") return undefined;
    const value = (source as Data)[field.fieldName];
    if (typeof value !== "function") return value;
    return (source as Methods)[field.fieldName]?.(args, this.context, new ResolveInfo(field, this, path));
  }

  /** An error of a nullable position is recorded and the position nulled; a non-null one goes up. */
  private fail(raw: unknown, field: FieldPlan, nonNull: boolean, path: Path): null {
    const error = locatedError(raw, field.nodes, pathToArray(path));
    if (nonNull) throw error;
    this.collected.add(error, path);
    return null;
  }

  private complete(plan: ValuePlan, field: FieldPlan, path: Path | undefined, result: unknown): unknown {
    if (result instanceof Error) throw result;
    if (plan.kind === "nonNull") {
      const completed = this.complete(plan.of, field, path, result);
      if (completed === null) throw new Error(`Cannot return null for non-nullable field ${field.parentType.name}.${field.fieldName}.`);
      return completed;
    }
    if (result == null) return null;
    switch (plan.kind) {
      case "leaf":
        // Planned only for types whose serialize never answers null for a value (leaves.ts).
        return plan.type.serialize(result);
      case "object":
        return this.fields(plan.fields, result, path);
      case "list":
        return this.list(plan.of, field, path, result);
    }
  }

  private list(item: ValuePlan, field: FieldPlan, path: Path | undefined, result: unknown): unknown {
    if (!isIterableObject(result)) {
      throw new GraphQLError(`Expected Iterable, but did not find one for field "${field.parentType.name}.${field.fieldName}".`);
    }
    let containsPromise = false;
    const each = (value: unknown, index: number): unknown => {
      const completed = this.item(item, field, { prev: path, key: index, typename: undefined }, value);
      if (isPromise(completed)) containsPromise = true;
      return completed;
    };
    let completed: unknown[];
    if (Array.isArray(result)) {
      completed = new Array<unknown>(result.length);
      for (let i = 0; i < result.length; i++) completed[i] = each(result[i], i);
    } else {
      completed = Array.from(result, each);
    }
    return containsPromise ? Promise.all(completed) : completed;
  }

  private item(plan: ValuePlan, field: FieldPlan, path: Path, value: unknown): unknown {
    try {
      const completed = isPromise(value) ? value.then((resolved) => this.complete(plan, field, path, resolved)) : this.complete(plan, field, path, value);
      if (isPromise(completed)) return completed.then(undefined, (raw: unknown) => this.fail(raw, field, plan.kind === "nonNull", path));
      return completed;
    } catch (raw) {
      return this.fail(raw, field, plan.kind === "nonNull", path);
    }
  }
}
