interface Waiting<K, V> {
  id: string;
  key: K;
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects the loads requested while GraphQL resolves one level of a result (the resolvers of
 * every item in a list run in the same tick) and fetches them in one call. Results are kept for
 * the request, so the same key is read once however often it appears.
 */
export class Batcher<K, V> {
  private readonly cache = new Map<string, Promise<V>>();
  private waiting: Waiting<K, V>[] = [];

  constructor(
    private readonly idOf: (key: K) => string,
    private readonly fetch: (keys: K[]) => Promise<Map<string, V>>,
    private readonly missing: V,
  ) {}

  load(key: K): Promise<V> {
    const id = this.idOf(key);
    const known = this.cache.get(id);
    if (known) return known;
    const promise = new Promise<V>((resolve, reject) => this.waiting.push({ id, key, resolve, reject }));
    this.cache.set(id, promise);
    // After the promise jobs already queued have run: that is when sibling resolvers have asked.
    if (this.waiting.length === 1) void Promise.resolve().then(() => process.nextTick(() => void this.dispatch()));
    return promise;
  }

  private async dispatch(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const found = await this.fetch(batch.map((w) => w.key));
      for (const w of batch) w.resolve(found.has(w.id) ? (found.get(w.id) as V) : this.missing);
    } catch (error) {
      for (const w of batch) {
        this.cache.delete(w.id);
        w.reject(error);
      }
    }
  }
}
