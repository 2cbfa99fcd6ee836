import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations, type Static } from "../../lib/index.ts";
import { Post } from "./post.ts";
import { signedIn } from "./policy.ts";
import { Tag } from "./tag.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  post: Type.String({ minLength: 1 }),
  tag: Type.String({ minLength: 1 }),
});

export interface PostTag extends Static<typeof schema> {
  createdBy: string;
}

/** The join model of Post and Tag (composite key post + tag): the post's author tags it. */
export class PostTag extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["post", "tag"] as const;
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = {
    // Seen with its post; only who may change the post (its author) tags or untags it.
    post: belongsTo(() => Post, { requires: { read: "read", create: "update", update: "update", delete: "update" } }),
    tag: belongsTo(() => Tag),
    createdBy: belongsTo(() => User, { fromCurrentUser: true }),
  };

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    return signedIn(ctx);
  }
}
