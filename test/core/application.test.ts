import { describe, expect, it } from "vitest";
import { Application, finalModels } from "../../lib/core/application.ts";
import { ConfigurationError } from "../../lib/core/config.ts";
import { Model } from "../../lib/core/model.ts";
import { describeModel, pluralize } from "../../lib/core/model-info.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { Service } from "../../lib/core/service.ts";
import { definition } from "../fixtures/blog/index.ts";
import { inProcess } from "../support/parts.ts";

class Base extends Model {
  static override readonly schema = Type.Object({ uuid: Type.String(), name: Type.String() });
}
class Special extends Base {}
class Other extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["code"] as const;
  static override readonly schema = Type.Object({ code: Type.String() });
}

class Mailer extends Service<{ from: string; retries: number }> {
  static override readonly type = "Acme/Mailer";
  static override readonly options = Type.Object({ from: Type.String({ format: "email" }), retries: Type.Integer({ default: 3 }) });
  @Operation({ input: Type.Object({ to: Type.String() }) })
  async send(): Promise<string> {
    return this.options.from;
  }
}

function app(services: Record<string, { type: string; [k: string]: unknown }>) {
  return new Application({ name: "t", version: "1", models: [Base, Special, Other], serviceTypes: [Mailer], services }, inProcess);
}

describe("registry", () => {
  it("serves only final models: a base shadowed by a subclass is skipped", () => {
    expect(finalModels([Base, Special, Other])).toEqual([Special, Other]);
    expect(
      app({})
        .models()
        .map((m) => m.name),
    ).toEqual(["Special", "Other"]);
  });

  it("names routes by the lowercase plural of the class", () => {
    expect(pluralize("Post")).toBe("posts");
    expect(pluralize("PostTag")).toBe("posttags");
    expect(pluralize("Category")).toBe("categories");
    expect(pluralize("Address")).toBe("addresses");
    const blog = new Application(definition, inProcess);
    expect(
      blog
        .models()
        .map((m) => m.plural)
        .sort(),
    ).toEqual(["comments", "posts", "posttags", "tags", "userfollows", "users"]);
  });

  it("derives keys, input and output schemas, and an index per foreign key", () => {
    const blog = new Application(definition, inProcess);
    const post = blog.model("Post");
    expect(post?.keyFields).toEqual(["slug"]);
    expect(Object.keys(post?.inputSchema.properties ?? {})).toEqual(["slug", "title", "content", "status", "viewCount"]);
    expect(Object.keys(post?.outputSchema.properties ?? {})).toEqual(expect.arrayContaining(["author", "createdAt", "updatedAt"]));
    expect(blog.model("User")?.keyFields).toEqual(["uuid"]);
    expect(blog.model("User")?.inputSchema.properties).not.toHaveProperty("password");
    expect(blog.model("PostTag")?.table).toEqual({
      key: { hash: "post", range: "tag" },
      indexes: [
        { name: "by_tag", hash: "tag", range: "post" },
        { name: "by_createdBy", hash: "createdBy", range: "post" },
      ],
    });
    expect(blog.model("Comment")?.table.indexes.map((i) => i.name)).toEqual(["by_post", "by_author"]);
    expect(describeModel(Other).generatedKey).toBe(false);
  });
});

describe("configuration", () => {
  it("applies option defaults and resolves types case-insensitively with or without namespace", () => {
    const a = app({ mail: { type: "mailer", from: "a@b.co" } });
    expect(a.service("mail")?.service.options).toEqual({ from: "a@b.co", retries: 3 });
    expect(app({ mail: { type: "Other/MAILER", from: "a@b.co" } }).service("mail")).toBeDefined();
  });

  it("names the service, the option and the problem", () => {
    expect(() => app({ mail: { type: "Mailer", from: "a@b.co", colour: "red" } })).toThrow(
      /service 'mail' \(Acme\/Mailer\): option 'colour' is not an option of this type/,
    );
    expect(() => app({ mail: { type: "Mailer" } })).toThrow(/service 'mail' \(Acme\/Mailer\): option 'from' is required/);
    expect(() => app({ mail: { type: "Mailer", from: "nope" } })).toThrow(/option 'from' expected string to match 'email' format/);
    expect(() => app({ x: { type: "Unknown" } })).toThrow(ConfigurationError);
  });
});
