import {
  belongsTo,
  contains,
  manyToMany,
  Model,
  Operation,
  Type,
  type Action,
  type Context,
  type Decision,
  type RelationDeclarations,
  type Static,
} from "../../lib/index.ts";
import { Comment } from "./comment.ts";
import { ownedBy, signedIn } from "./policy.ts";
import { PostTag } from "./post-tag.ts";
import { Tag } from "./tag.ts";
import { User } from "./user.ts";

const schema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 200, pattern: "^[^/\\s]+$" }),
  title: Type.String({ minLength: 1, maxLength: 300 }),
  content: Type.String({ maxLength: 100_000 }),
  status: Type.Union([Type.Literal("draft"), Type.Literal("published"), Type.Literal("archived")], { examples: ["published"] }),
  viewCount: Type.Optional(Type.Integer({ minimum: 0 })),
});

const PublishInput = Type.Object({ destination: Type.Union([Type.Literal("linkedin"), Type.Literal("twitter")]) });

export interface Post extends Static<typeof schema> {
  author: string;
  createdAt: string;
  updatedAt: string;
}

/** Published posts are public; drafts and archived posts are seen by their author only. */
export class Post extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["slug"] as const;
  static override readonly schema = schema;
  static override readonly relations: RelationDeclarations = {
    author: belongsTo(() => User, { fromCurrentUser: true }),
    comments: contains(() => Comment, "post"),
    tags: manyToMany(() => Tag, { through: () => PostTag, from: "post", to: "tag" }),
  };
  /** `status = 'published' ORDER BY createdAt DESC` is the blog's front page; author pages likewise. */
  static override readonly indexes = [
    { name: "by_status", hash: "status", range: "createdAt" },
    { name: "by_author", hash: "author", range: "createdAt" },
  ];

  override canAct(ctx: Context, action: Action): Decision {
    if (action === "read") return this.status === "published" ? true : ownedBy(ctx, this.author);
    if (action === "create") return signedIn(ctx);
    return ownedBy(ctx, this.author);
  }

  @Operation({ input: PublishInput, output: Type.String(), errors: [] })
  async publish({ destination }: Static<typeof PublishInput>): Promise<string> {
    return `Post '${this.slug}' shared on ${destination}`;
  }
}
