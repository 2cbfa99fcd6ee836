import { belongsTo, Model, Type, type Action, type Context, type Decision, type RelationDeclarations, type Static } from "../../lib/index.ts";
import { Post } from "./post.ts";
import { ownedBy } from "./policy.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  uuid: Type.String({ format: "uuid" }),
  content: Type.String({ minLength: 1, maxLength: 10_000 }),
  post: Type.String({ minLength: 1 }),
  author: Type.String({ minLength: 1 }),
  isEdited: Type.Optional(Type.Boolean()),
});

export interface Comment extends Static<typeof schema> {}

/**
 * Comments carry their post and author keys as plain strings (belongs-to relations). A comment follows its
 * post's visibility; it is written only in one's own name, and only its author edits or deletes it
 * (an edit cannot hand it to someone else: the written record must be the caller's too).
 */
export class Comment extends Model {
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = {
    // A comment is seen by whoever may read its post, and written only on a post one may read.
    post: belongsTo(() => Post, { requires: { read: "read", create: "read" } }),
    author: belongsTo(() => User),
  };
  static override readonly indexes = [{ name: "by_post", hash: "post", range: "createdAt" }];

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return true;
    return ownedBy(ctx, this.author);
  }
}
