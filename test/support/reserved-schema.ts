import { Application } from "../../lib/core/application.ts";
import { Model } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { inProcess } from "./parts.ts";

/** A model whose operation's field (`__touchNote`) takes a name GraphQL reserves for introspection. */
class Note extends Model {
  static override readonly schema = Type.Object({ uuid: Type.String(), text: Type.String() });
  @Operation({ errors: [] })
  async __touch(): Promise<void> {}
}

/** An application whose generated schema only graphql-js's type-system validation refuses. */
export function reservedNameApp(): Application {
  return new Application({ name: "reserved", version: "1", models: [Note], serviceTypes: [], services: {} }, inProcess);
}
