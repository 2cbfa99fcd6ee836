/**
 * The framework's authoring API: everything an application (app/) writes its models, services and
 * definition with. Applications import from here only, never from files deep inside lib/ (an
 * eslint rule enforces it for app/), so lib/ can be reorganised without touching them.
 *
 * Only declarations belong here: the faces (REST, GraphQL HTTP, WebSocket) and the stores are
 * wired by functions/ and the CLI, and stay out of this module so that importing it stays cheap.
 */

// Application and its definition.
export { Application, type ApplicationDefinition, type ApplicationParts, type RestOptions } from "./core/application.ts";
export { ConfigurationError, type ServiceConfig } from "./core/config.ts";
// What an application run from source is built with (app/index.ts): its options checked. Lambda
// functions state their own parts (functions/); the parts that would weigh on every function's
// bundle (the listing, the run-time validator compiler) are passed by what runs from source.
export { serviceOptionsCheck } from "./core/config-check.ts";

// Models: the base class, its policy vocabulary, schemas, relations, behaviors, operations.
export {
  Model,
  type Action,
  type CrudAction,
  type Decision,
  type FieldReader,
  type IndexDeclaration,
  type ListLimits,
  type ModelClass,
  type Related,
} from "./core/model.ts";
export { Type, type Static, type TObject, type TSchema, type TProperties } from "./core/schema.ts";
export { belongsTo, contains, manyToMany, type RelationDeclarations } from "./core/relations.ts";
export { Behavior, type BehaviorState } from "./core/behavior.ts";
export { PasswordBehavior } from "./core/behaviors/password.ts";
export { Operation, type OperationOptions, type HttpMethod } from "./core/operation.ts";
export type { InstanceCall, ModelRecords, OperationCall, PatchOf, RecordOf, SelfRecord } from "./core/acting.ts";

// Services and who is asking.
export { Service, type ServiceClass } from "./core/service.ts";
export { Context } from "./core/context.ts";
// Structured logs: one JSON line per event in Lambda, a readable line under `npm start`.
export { log } from "./core/log.ts";

// Errors an operation may throw; every face maps them (REST status, GraphQL extensions.code).
export {
  DomainError,
  ValidationError,
  BadQueryError,
  UnauthenticatedError,
  PermissionError,
  NotFoundError,
  ConflictError,
  PreconditionFailedError,
  ThrottledError,
  isDomainError,
  type FieldError,
  type ErrorCode,
} from "./core/errors.ts";

// Framework services an application configures by type.
export { GraphQLService } from "./graphql/service.ts";

// What an application's seed (app/seed/) declares; `npm start` and `npm run seed` create it.
export type { SeedData, SeedRecord, SeedUser } from "./local/seed-data.ts";

// The authentication service and its providers, configured by type like any service.
export { AuthenticationService, EmailPasswordProvider, MailerService } from "./auth/index.ts";
// Who is asking, without what issues credentials: a record read's function builds this one.
export { AccessAuthentication } from "./auth/access.ts";
export { IdpProvider } from "./auth/idp/provider.ts";
// The providers as functions that run none of their flows build them (type, options, description).
export { EmailPasswordProviderDescription } from "./auth/email/description.ts";
export { IdpProviderDescription } from "./auth/idp/description.ts";
