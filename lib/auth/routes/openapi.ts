import type { Application } from "../../core/application.ts";
import { Context } from "../../core/context.ts";
import type { ModelInfo } from "../../core/model-info.ts";
import { authenticationOf } from "../service.ts";
import { schemaRef, type AuthContract, type Json } from "./contract.ts";
import { authRoutes } from "./list.ts";
import type { AuthRoute } from "./route.ts";

const json = (schema: Json): Json => ({ "application/json": { schema } });
const RETRY_AFTER = { "Retry-After": { required: true, description: "Seconds to wait before retrying", schema: { type: "string", pattern: "^[0-9]+$" } } };

const ERRORS: Record<number, string> = {
  400: "Invalid input (`errors` names each field, a path parameter that is not valid percent-encoding included), or an invalid mailed token (`reason: INVALID_TOKEN`)",
  401: "Not signed in, or refused credentials: `reason` says which",
  403: "Refused: `reason` says why (ORIGIN_REFUSED for a cookie-authenticated write from a foreign Origin)",
  404: "No such identity of the caller's",
  409: "`reason`: ACCOUNT_EXISTS or LAST_IDENT",
  413: "The body exceeds 1 MiB",
  415: "The body is not `application/json`",
  429: "Too many attempts (`reason`), or DynamoDB stayed throttled: retry after `Retry-After` seconds",
  500: "Internal error: the body carries a `requestId` to find the logged cause",
  503: "DynamoDB or the identity provider did not answer in time: retry after `Retry-After` seconds",
};

/**
 * Every error status of a route: its own, the body's, the path's (the router refuses a parameter
 * that is not valid percent-encoding), the store's, the caller's, and 500.
 */
export function authErrorStatuses(contract: AuthContract, path: string): number[] {
  const statuses = new Set<number>([500, ...contract.errors]);
  if (contract.body) [400, 413, 415].forEach((s) => statuses.add(s));
  if (path.includes("{")) statuses.add(400);
  if (contract.store) [429, 503].forEach((s) => statuses.add(s));
  if (contract.caller === "user") statuses.add(401);
  return [...statuses].sort((a, b) => a - b);
}

const SIGNED_IN: Json[] = [{ bearerAuth: [] }, { sessionCookie: [] }];
const SECURITY: Record<AuthContract["caller"], Json[]> = { none: [], optional: [{}, ...SIGNED_IN], user: SIGNED_IN };

function responses(contract: AuthContract, path: string): Json {
  const out: Json = {};
  for (const [status, answer] of Object.entries(contract.answers)) {
    const headers: Json = {
      ...(answer.redirect ? { Location: { required: true, description: "Where the browser goes next", schema: { type: "string" } } } : {}),
      ...(answer.cookie ? { "Set-Cookie": { required: true, description: "The session cookie (HttpOnly), set or cleared", schema: { type: "string" } } } : {}),
    };
    out[status] = {
      description: answer.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(answer.schema ? { content: json(answer.schema) } : {}),
    };
  }
  for (const status of authErrorStatuses(contract, path)) {
    out[String(status)] = {
      description: ERRORS[status] ?? "Error",
      ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
      content: json(schemaRef("AuthError")),
    };
  }
  return out;
}

/** Example values of the auth bodies' fields, by name (the bodies are a handful of well-known fields). */
const FIELD_EXAMPLES: Record<string, unknown> = {
  email: "alice@example.com",
  password: "correct horse battery",
  new_password: "a different passphrase",
  token: "eyJhbGciOiJIUzI1NiJ9.eyJwdXJwb3NlIjoicmVjb3ZlciJ9.c2lnbmF0dXJl",
  refresh_token: "kq3m0Rj8XQbq4o1f9d2c7Y5t6U8v0w1x2y3z4A5B6C7",
  user: { username: "alice", name: "Alice" },
};

/** A body example: the schema's fields with their example values (an ID token for the Idp's login). */
function bodyExample(body: Json): unknown {
  if (typeof body.$ref === "string") return { token: "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbSJ9.c2lnbmF0dXJl" };
  const fields = Object.keys((body.properties ?? {}) as Json).filter((f) => f in FIELD_EXAMPLES);
  return Object.fromEntries(fields.map((f) => [f, FIELD_EXAMPLES[f]]));
}

function operation(route: AuthRoute): Json {
  const { contract } = route;
  const parameters = [
    ...[...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } })),
    ...Object.entries(contract.query ?? {}).map(([name, description]) => ({ name, in: "query", required: false, description, schema: { type: "string" } })),
  ];
  return {
    operationId: route.operation,
    tags: ["Authentication"],
    summary: route.summary,
    security: SECURITY[contract.caller],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(contract.body
      ? { requestBody: { required: true, content: { "application/json": { schema: contract.body, example: bodyExample(contract.body) } } } }
      : {}),
    responses: responses(contract, route.path),
  };
}

/** OpenAPI path items of the auth routes, from the contract each route declares beside its handler. */
export function authOpenApiPaths(app: Application): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of authRoutes(app)) {
    paths[route.path] ??= {};
    (paths[route.path] as Json)[route.method.toLowerCase()] = operation(route);
  }
  return paths;
}

const copy = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/**
 * The user as they see themselves: the identity model's record, in which each field its
 * `fieldReaders` shows to the record's own user is as required as the schema says.
 */
function currentUser(info: ModelInfo): Json {
  const key = info.keyFields[0] as string;
  const self = "openapi-self";
  const ctx = new Context({ userId: self, requestId: "openapi" });
  const shown = info.restrictedFields.filter((field) => {
    try {
      return info.cls.fieldReaders[field]?.(ctx, { [key]: self }) === true;
    } catch {
      return false;
    }
  });
  const required = (info.schema.required ?? []).filter((f) => shown.includes(f));
  return required.length > 0 ? { allOf: [schemaRef(info.name)], required } : schemaRef(info.name);
}

/** Registration's `user`: the identity model's input, whose email the registered one replaces. */
function registrationUser(info: ModelInfo): Json {
  const schema = copy(info.inputSchema);
  schema.required = ((schema.required as string[] | undefined) ?? []).filter((f) => f !== "email");
  delete schema.examples;
  return schema;
}

const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: "null" }] });

/** `components.schemas` of the auth routes' bodies and answers; empty without the authentication service. */
export function authOpenApiComponents(app: Application): Json {
  const auth = authenticationOf(app);
  if (!auth) return {};
  const info = auth.identityModel();
  const string = { type: "string" };
  return {
    AuthError: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "integer", description: "The HTTP status" },
        message: string,
        reason: { type: "string", description: "The stable name of the refusal (README, Authentication: reasons)" },
        requestId: { type: "string", description: "On 500 only" },
        errors: { type: "array", items: { type: "object", required: ["path", "message"], properties: { path: string, message: string } } },
      },
    },
    CurrentUser: currentUser(info),
    RegistrationUser: registrationUser(info),
    TokenResponse: {
      type: "object",
      required: ["user", "access_token", "token_type", "expires_in", "refresh_token"],
      properties: {
        user: schemaRef("CurrentUser"),
        access_token: { type: "string", description: "An access JWT (EdDSA), valid `expires_in` seconds" },
        token_type: { const: "Bearer" },
        expires_in: { type: "integer", minimum: 0, maximum: auth.tokenSettings().lifetime },
        refresh_token: { type: "string", description: "Single use: POST /auth/refresh rotates it" },
      },
    },
    Accepted: { type: "object", required: ["status", "message"], properties: { status: { const: "ACCEPTED" }, message: string } },
    Jwks: {
      type: "object",
      required: ["keys"],
      properties: {
        keys: {
          type: "array",
          items: {
            type: "object",
            required: ["kty", "kid", "alg", "use"],
            properties: { kty: string, crv: string, x: string, kid: string, alg: string, use: { const: "sig" } },
          },
        },
      },
    },
    AuthProviders: {
      type: "object",
      required: ["providers"],
      properties: {
        providers: {
          type: "array",
          items: {
            type: "object",
            required: ["name", "provider", "url"],
            properties: { name: string, provider: { enum: ["email", "idp"] }, url: string, verification: string, registration: string, issuer: string },
          },
        },
      },
    },
    Idents: {
      type: "object",
      required: ["idents"],
      properties: {
        idents: {
          type: "array",
          items: {
            type: "object",
            required: ["uuid", "provider", "providerUid", "email", "verifiedAt", "createdAt"],
            properties: {
              uuid: string,
              provider: string,
              providerUid: string,
              email: nullable(string),
              verifiedAt: nullable({ type: "string", format: "date-time" }),
              createdAt: { type: "string", format: "date-time" },
            },
          },
        },
      },
    },
    IdpTokenLogin: {
      oneOf: [
        {
          type: "object",
          additionalProperties: false,
          required: ["token"],
          properties: { token: { type: "string", minLength: 1, description: "The ID token" } },
        },
        {
          type: "object",
          additionalProperties: false,
          required: ["tokens"],
          properties: {
            tokens: {
              type: "object",
              required: ["id_token"],
              additionalProperties: true,
              properties: { id_token: { type: "string", minLength: 1 } },
              description: "The provider's token response, kept encrypted on the ident",
            },
          },
        },
      ],
    },
  };
}
