import { jwtVerify, SignJWT } from "jose";

export type EmailPurpose = "register" | "verify" | "recover";

export interface EmailClaims {
  purpose: EmailPurpose;
  email: string;
  /** The user, for verify and recover. */
  sub?: string;
  /** Recover: a fingerprint of the password hash it replaces, so the link works once. */
  pwd?: string;
}

/**
 * The tokens mailed in links: HS256 under a key of their own (derived from the application
 * secret), one audience per purpose, so neither an access token nor another purpose's token passes.
 */
export class EmailTokens {
  constructor(
    private readonly key: Uint8Array,
    private readonly app: string,
    private readonly now: () => number,
  ) {}

  private audience(purpose: EmailPurpose): string {
    return `${this.app}:email-${purpose}`;
  }

  sign(claims: EmailClaims, lifetimeSeconds: number): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    const { purpose, sub, ...rest } = claims;
    const jwt = new SignJWT({ ...rest })
      .setProtectedHeader({ alg: "HS256" })
      .setAudience(this.audience(purpose))
      .setIssuedAt(iat)
      .setExpirationTime(iat + lifetimeSeconds);
    return (sub ? jwt.setSubject(sub) : jwt).sign(this.key);
  }

  async verify(token: string, purposes: readonly EmailPurpose[]): Promise<EmailClaims | undefined> {
    if (token.length > 2048) return undefined;
    for (const purpose of purposes) {
      try {
        const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"], audience: this.audience(purpose), currentDate: new Date(this.now()) });
        if (typeof payload.email !== "string") return undefined;
        return {
          purpose,
          email: payload.email,
          ...(typeof payload.sub === "string" ? { sub: payload.sub } : {}),
          ...(typeof payload.pwd === "string" ? { pwd: payload.pwd } : {}),
        };
      } catch {
        // not this purpose (or not valid at all)
      }
    }
    return undefined;
  }
}
