import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations, type Static } from "../../lib/index.ts";
import { ownedBy, signedIn } from "./policy.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100, pattern: "^[^/\\s]+$" }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.String({ maxLength: 2000 }),
  color: Type.String({ pattern: "^#[0-9a-fA-F]{6}$", examples: ["#3366ff"] }),
});

export interface Tag extends Static<typeof schema> {
  createdBy: string;
}

/** Anyone reads tags; a signed-in user creates one and is the only one who may change it. */
export class Tag extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["slug"] as const;
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = { createdBy: belongsTo(() => User, { fromCurrentUser: true }) };

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    if (action === "create") return signedIn(ctx);
    return ownedBy(ctx, this.createdBy);
  }
}
