/**
 * A behavior is an attribute with methods (`user.password.set()`), whose state is persisted as a
 * nested object on the record. Clients can never write it through create/update/patch: only the
 * behavior's own methods (called from operations or services) change it.
 */
export type BehaviorState = Record<string, unknown>;

export abstract class Behavior {
  constructor(protected state: BehaviorState = {}) {}

  /** What is persisted. Keys starting with `__` stay server-side: they are stripped from output. */
  toStored(): BehaviorState {
    return { ...this.state };
  }
}

export type BehaviorClass = new (state?: BehaviorState) => Behavior;
