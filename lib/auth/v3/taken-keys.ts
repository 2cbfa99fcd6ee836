/**
 * The v4 keys this pass has seen taken (moved to, or found held by a transaction's condition).
 * Two v3 rows meet on one v4 key only as case variants of one email: the second one is a
 * conflict, known without a read or a transaction that DynamoDB would cancel. Bounded: past the
 * cap it starts over, and the transactions' conditions still decide (a cancelled transaction of
 * 50 is resent without its conflicts), so forgetting costs time, never correctness.
 */
export class TakenKeys {
  private static readonly CAP = 1_000_000;
  private keys = new Set<string>();

  /** `read`, when given, is asked which of a page's keys exist before its moves are sent. */
  constructor(private readonly read?: (keys: string[]) => Promise<Set<string>>) {}

  async learn(keys: string[]): Promise<void> {
    if (!this.read || keys.length === 0) return;
    for (const key of await this.read(keys)) this.add(key);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.size >= TakenKeys.CAP) this.keys = new Set();
    this.keys.add(key);
  }
}
