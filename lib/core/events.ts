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

/** Any other domain event (`Authentication.Login`, ...): a name and a JSON payload. */
export interface DomainEvent {
  name: string;
  payload: Record<string, unknown>;
}

type DomainListener = (event: DomainEvent) => void | Promise<void>;

/**
 * The in-process bus the domain layer emits lifecycle events on. Listeners run after the write has
 * succeeded; a failing listener is reported and never undoes or fails the write.
 */
export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly domainListeners = new Map<string, Set<DomainListener>>();

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

  /** `name` is an event name (`Authentication.Login`) or `*`; lifecycle listeners never see these. */
  onEvent(name: string, listener: DomainListener): () => void {
    const set = this.domainListeners.get(name) ?? new Set<DomainListener>();
    this.domainListeners.set(name, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  async publish(event: DomainEvent, onError: (error: unknown) => void = () => {}): Promise<void> {
    const targets = [event.name, "*"].flatMap((n) => [...(this.domainListeners.get(n) ?? [])]);
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
