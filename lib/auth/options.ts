import type { Static } from "@sinclair/typebox";
import { Type } from "../core/schema.ts";

/** Options of `Framework/Authentication` (README, Authentication). Durations in seconds. */
export const authenticationOptions = Type.Object({
  /** `iss` of access tokens; the application's name by default. */
  issuer: Type.Optional(Type.String({ minLength: 1 })),
  /** `aud` of access tokens; the application's name by default. */
  audience: Type.Optional(Type.String({ minLength: 1 })),
  accessToken: Type.Object({ lifetime: Type.Integer({ minimum: 60, maximum: 900, default: 900 }) }, { default: {} }),
  session: Type.Object(
    {
      cookie: Type.String({ pattern: "^[A-Za-z0-9_-]+$", default: "session" }),
      lifetime: Type.Integer({ minimum: 300, maximum: 400 * 86400, default: 30 * 86400 }),
    },
    { default: {} },
  ),
  refresh: Type.Object({ reuseInterval: Type.Integer({ minimum: 0, maximum: 60, default: 10 }) }, { default: {} }),
  compatibility: Type.Object({ v3: Type.Boolean({ default: true }) }, { default: {} }),
});

export type AuthenticationOptions = Static<typeof authenticationOptions>;
