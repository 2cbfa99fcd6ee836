import { Model, PasswordBehavior, Type, type Action, type Context, type Decision, type FieldReader, type Static } from "../../lib/index.ts";
import { ownedBy, signedIn } from "./policy.ts";

const schema = Type.Object({
  uuid: Type.String({ format: "uuid" }),
  username: Type.String({ minLength: 3, maxLength: 64 }),
  email: Type.String({ format: "email", maxLength: 254 }),
  name: Type.String({ maxLength: 200 }),
  bio: Type.Optional(Type.String({ maxLength: 4000 })),
});

export interface User extends Static<typeof schema> {
  password: PasswordBehavior;
}

/**
 * Public profiles: anyone reads a user, but the email only its owner. A signed-in identity creates
 * its own profile (its id becomes the uuid) and only it may change or delete it.
 */
export class User extends Model {
  static override readonly schema = schema;
  static override readonly identity = true;
  static override readonly behaviors = { password: PasswordBehavior };
  /** The address comes from the account's sign-in (the authentication service sets it), never from a client. */
  static override readonly serverOwned = ["email"];
  /** The email is its owner's alone: hidden from everyone else, and so never usable in their filters. */
  static override readonly fieldReaders: Readonly<Record<string, FieldReader>> = {
    email: (ctx, record) => record !== undefined && ctx.getCurrentUserId() === record.uuid,
  };

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    if (action === "create") return signedIn(ctx);
    return ownedBy(ctx, this.uuid);
  }
}
