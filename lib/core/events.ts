export type LifecycleKind = "Created" | "Updated" | "Patched" | "Deleted";

export interface LifecycleEvent {
  /** `<Model>.<Kind>`, e.g. `Post.Created`. */
  name: string;
  model: string;
  kind: LifecycleKind;
  key: Record<string, string | number>;
  /** The stored record after the change (before it, for Deleted), server-only fields included. */
  record: Record<string, unknown>;
  /**
   * For Updated and Patched, the stored record before the change when the source knows it (a
   * DynamoDB stream's old image): a subscriber it was shown to, and that cannot see or match the
   * new one, is told the record left.
   */
  previous?: Record<string, unknown>;
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
function register<T>(listeners: Map<string, Set<T>>, name: string, listener: T): () => void {
  const set = listeners.get(name) ?? new Set<T>();
  listeners.set(name, set);
  set.add(listener);
  return () => set.delete(listener);
}

/** Every listener runs; one that fails is reported and never stops the others or the write. */
async function deliver<E>(targets: ((event: E) => void | Promise<void>)[], event: E, onError: (error: unknown) => void): Promise<void> {
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

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly domainListeners = new Map<string, Set<DomainListener>>();

  /** `name` is an event name (`Post.Created`), a model (`Post`) or `*` for everything. */
  on(name: string, listener: Listener): () => void {
    return register(this.listeners, name, listener);
  }

  async emit(event: LifecycleEvent, onError: (error: unknown) => void = () => {}): Promise<void> {
    await deliver(
      [event.name, event.model, "*"].flatMap((n) => [...(this.listeners.get(n) ?? [])]),
      event,
      onError,
    );
  }

  /** `name` is an event name (`Authentication.Login`) or `*`; lifecycle listeners never see these. */
  onEvent(name: string, listener: DomainListener): () => void {
    return register(this.domainListeners, name, listener);
  }

  async publish(event: DomainEvent, onError: (error: unknown) => void = () => {}): Promise<void> {
    await deliver(
      [event.name, "*"].flatMap((n) => [...(this.domainListeners.get(n) ?? [])]),
      event,
      onError,
    );
  }
}
