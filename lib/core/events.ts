export type LifecycleKind = "Created" | "Updated" | "Patched" | "Deleted";

export interface LifecycleEvent {
  /** `<Model>.<Kind>`, e.g. `Post.Created`. */
  name: string;
  model: string;
  kind: LifecycleKind;
  key: Record<string, string | number>;
  /** The stored record after the change (before it, for Deleted), server-only fields included. */
  record: Record<string, unknown>;
}

type Listener = (event: LifecycleEvent) => void | Promise<void>;

/**
 * The in-process bus the domain layer emits lifecycle events on. Listeners run after the write has
 * succeeded; a failing listener is reported and never undoes or fails the write.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** `name` is an event name (`Post.Created`), a model (`Post`) or `*` for everything. */
  on(name: string, listener: Listener): () => void {
    const set = this.listeners.get(name) ?? new Set<Listener>();
    this.listeners.set(name, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  async emit(event: LifecycleEvent, onError: (error: unknown) => void = () => {}): Promise<void> {
    const targets = [event.name, event.model, "*"].flatMap((n) => [...(this.listeners.get(n) ?? [])]);
    await Promise.all(
      targets.map(async (listener) => {
        try {
          await listener(event);
        } catch (error) {
          onError(error);
        }
      }),
    );
  }
}
