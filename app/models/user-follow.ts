import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations, type Static } from "../../lib/index.ts";
import { ownedBy } from "./policy.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  follower: Type.String({ minLength: 1 }),
  following: Type.String({ minLength: 1 }),
});

export interface UserFollow extends Static<typeof schema> {}

/** Who follows whom (composite key follower + following); one follows and unfollows for oneself. */
export class UserFollow extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["follower", "following"] as const;
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = {
    follower: belongsTo(() => User),
    following: belongsTo(() => User),
  };

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    return ownedBy(ctx, this.follower);
  }
}
