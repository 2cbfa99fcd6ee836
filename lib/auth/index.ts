/**
 * The authentication service's public entry: faces (who otherwise ask lib/core's identity port),
 * the Idp provider and the v3 migration import from here, never from files deep inside lib/auth/.
 */
export { AuthenticationService, authenticationOf, type Credentials } from "./service.ts";
export { AuthError, type AuthReason } from "./errors.ts";
export { EmailPasswordProvider } from "./email/provider.ts";
export { MailerService } from "./mail/mailer.ts";
export { Idents, identKey, normalizeUid, type Ident, type IdentRow, type LegacyIdentReader, type ProviderName } from "./idents.ts";
export { IdentTokens } from "./ident-tokens.ts";
export { Sessions, type SessionRow } from "./sessions.ts";
export { RefreshTokens, type RefreshRow } from "./refresh.ts";
export { authTables, authTtl, IDENTS, SESSIONS, REFRESH, identShape, sessionShape, refreshShape } from "./tables.ts";
export { readCookie, sessionCookie, clearedCookie } from "./cookies.ts";
export { generateSigningJwk, publicKeySet } from "./keys.ts";
export type { AuthProvider, Identity, LoginOptions, LoginResult, ProviderIdentity, TokenResponse } from "./types.ts";
export { authRoutes } from "./routes/list.ts";
export { authOpenApiPaths, authOpenApiComponents } from "./routes/openapi.ts";
