import type { Target, Transport } from "../../lib/realtime/transport.ts";

/** The management API with a fixed latency per post (0 while subscribers are being set up). */
export class FixedLatencyTransport implements Transport {
  latencyMs = 0;
  posts = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** performance.now() of the first post since `mark()`: how long the delivery took to start posting. */
  firstPostAt: number | undefined;

  mark(): void {
    this.firstPostAt = undefined;
  }

  async post(_target: Target, _data: string): Promise<void> {
    this.firstPostAt ??= performance.now();
    this.posts++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    } finally {
      this.inFlight--;
    }
  }

  async disconnect(): Promise<void> {}
}
