import { Operation, Service, Type, type Context, type Decision, type OperationCall, type Static } from "../../lib/index.ts";
import { signedIn } from "../models/policy.ts";

const Options = Type.Object({
  /** Prepended to every published message, e.g. the blog's name. */
  prefix: Type.String({ default: "Published" }),
});

const PublishInput = Type.Object({ message: Type.String({ minLength: 1, maxLength: 1000 }) });
const PublishPostInput = Type.Object({ postId: Type.String({ minLength: 1 }) });
const PublishPostOutput = Type.Object({ postId: Type.String(), status: Type.String() });

/**
 * `publish` formats a message and touches no data: anyone may call it (an anonymous call answers 200).
 * `publishPost` changes a post, so it needs a signed-in caller, and then goes through the domain,
 * whose policy lets only the post's author publish it.
 */
export class PublisherService extends Service<Static<typeof Options>> {
  static override readonly type = "Publisher";
  static override readonly options = Options;
  // Its IAM role: the Post table (publishPost patches a post) and no other.
  static override readonly models = ["Post"];

  override canAct(ctx: Context, operation: string): Decision {
    return operation === "publish" ? true : signedIn(ctx);
  }

  @Operation({ input: PublishInput, output: Type.String(), errors: [] })
  async publish({ message }: Static<typeof PublishInput>): Promise<string> {
    return `${this.options.prefix}: ${message}`;
  }

  // Patching the post: it may be missing (or unreadable: 404), not the caller's (403), throttled or timed out.
  @Operation({ input: PublishPostInput, output: PublishPostOutput, errors: [403, 404, 429, 503] })
  async publishPost({ postId }: Static<typeof PublishPostInput>, { ctx }: OperationCall): Promise<Static<typeof PublishPostOutput>> {
    const post = this.app.model("Post");
    if (!post) throw new Error("the Post model is not registered");
    const { data } = await this.app.domain.patch(ctx, post, { slug: postId }, { status: "published" });
    return { postId, status: String(data.status) };
  }
}
