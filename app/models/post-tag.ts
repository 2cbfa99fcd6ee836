import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations, type Static } from "../../lib/index.ts";
import { Post } from "./post.ts";
import { ownedBy, signedIn } from "./policy.ts";
import { Tag } from "./tag.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  post: Type.String({ minLength: 1 }),
  tag: Type.String({ minLength: 1 }),
});

export interface PostTag extends Static<typeof schema> {
  createdBy: string;
}

/** The join model of Post and Tag (composite key post + tag). */
export class PostTag extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["post", "tag"] as const;
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = {
    post: belongsTo(() => Post),
    tag: belongsTo(() => Tag),
    createdBy: belongsTo(() => User, { fromCurrentUser: true }),
  };

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    if (action === "create") return signedIn(ctx);
    return ownedBy(ctx, this.createdBy);
  }
}
