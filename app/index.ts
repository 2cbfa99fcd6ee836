import pkg from "../package.json" with { type: "json" };
import { Application, GraphQLService, type ApplicationDefinition } from "../lib/index.ts";
import { Comment } from "./models/comment.ts";
import { Post } from "./models/post.ts";
import { PostTag } from "./models/post-tag.ts";
import { Tag } from "./models/tag.ts";
import { User } from "./models/user.ts";
import { UserFollow } from "./models/user-follow.ts";
import { PublisherService } from "./services/publisher.ts";
import { TestBeanService } from "./services/testbean.ts";
import { VersionService } from "./services/version.ts";

/** The sample blog: its models, the service types it may configure, and its configuration. */
export const definition: ApplicationDefinition = {
  name: "blog",
  version: pkg.version,
  models: [Post, User, Comment, Tag, PostTag, UserFollow],
  serviceTypes: [VersionService, PublisherService, TestBeanService, GraphQLService],
  services: {
    version: { type: "Version" },
    publisher: { type: "Publisher", prefix: "Published" },
    testbean: { type: "TestBean" },
    graphql: { type: "Framework/GraphQLService" },
  },
};

export function createApp(overrides: Partial<ApplicationDefinition> = {}): Application {
  return new Application({ ...definition, ...overrides });
}

export const app = createApp();
