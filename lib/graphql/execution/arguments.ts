import { Kind, getArgumentValues, type FieldNode, type GraphQLField, type ValueNode } from "graphql";
import type { ArgsPlan, FieldPlan } from "./plan.ts";

function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => hasVariable(f.value));
  return false;
}

/**
 * Only arguments of primitive values are shared between calls: a nested input object handed to
 * the domain or to an operation's code may be changed there, and must not reach another call.
 */
function primitives(values: Record<string, unknown>): boolean {
  for (const key in values) {
    const value = values[key];
    if ((typeof value === "object" && value !== null) || typeof value === "function") return false;
  }
  return true;
}

/**
 * Arguments without variables are coerced once, when planned. A literal that fails to coerce is
 * coerced (and fails) per call instead, where graphql-js reports it: as that field's error.
 */
export function planArguments(def: GraphQLField<unknown, unknown>, node: FieldNode, nextSlot: () => number): ArgsPlan {
  if (!node.arguments?.some((a) => hasVariable(a.value))) {
    try {
      const values = getArgumentValues(def, node, {});
      if (primitives(values)) return { fixed: Object.freeze(values) };
    } catch {
      // Falls through to coercion per call.
    }
  }
  return { slot: nextSlot() };
}

/** Marks a slot whose coerced arguments are not shareable: coerced again for every call. */
const PER_CALL = Symbol("per call");

export type ArgumentSlots = (Readonly<Record<string, unknown>> | typeof PER_CALL | undefined)[];

/**
 * A field's arguments for this request. Variables are fixed for the request, so the items of a
 * list share one coercion (frozen, so that no call can change another's); a coercion error is
 * raised again for each call, as graphql-js raises it.
 */
export function argumentsOf(field: FieldPlan, slots: ArgumentSlots, variables: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const plan = field.args;
  if ("fixed" in plan) return plan.fixed;
  const known = slots[plan.slot];
  if (known !== undefined && known !== PER_CALL) return known;
  const values = getArgumentValues(field.def, field.nodes[0] as FieldNode, variables);
  if (known === undefined) slots[plan.slot] = primitives(values) ? Object.freeze(values) : PER_CALL;
  return values;
}
