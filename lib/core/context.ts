import { randomUUID } from "node:crypto";

/**
 * Who is asking, carried from a face into every domain call. The current user reaches the domain
 * through this one seam; the authentication layer is what fills it.
 */
export class Context {
  readonly requestId: string;
  private readonly userId: string | undefined;

  constructor(init: { userId?: string; requestId?: string } = {}) {
    this.userId = init.userId;
    this.requestId = init.requestId ?? randomUUID();
  }

  /** Undefined for an anonymous request (and for a session still waiting for its second factor). */
  getCurrentUserId(): string | undefined {
    return this.userId;
  }

  static anonymous(requestId?: string): Context {
    return new Context({ requestId });
  }
}
