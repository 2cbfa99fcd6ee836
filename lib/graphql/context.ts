import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import { Loaders } from "./loaders.ts";

/** What every resolver receives: the application, the caller, and this request's batched loads. */
export interface GraphQLContext {
  app: Application;
  ctx: Context;
  loaders: Loaders;
}

export function graphqlContext(app: Application, ctx: Context): GraphQLContext {
  return { app, ctx, loaders: new Loaders(app, ctx) };
}
