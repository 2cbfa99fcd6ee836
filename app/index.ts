import pkg from "../package.json" with { type: "json" };
import { Application, type ApplicationDefinition } from "../lib/core/application.ts";
import { IdpProvider } from "../lib/auth/idp/provider.ts";
import { AuthenticationService } from "../lib/auth/index.ts";
import { GraphQLService } from "../lib/graphql/service.ts";
import { Comment } from "./models/comment.ts";
import { Post } from "./models/post.ts";
import { PostTag } from "./models/post-tag.ts";
import { Tag } from "./models/tag.ts";
import { User } from "./models/user.ts";
import { UserFollow } from "./models/user-follow.ts";
import { PublisherService } from "./services/publisher.ts";
import { TestBeanService } from "./services/testbean.ts";
import { VersionService } from "./services/version.ts";

/**
 * Where the sample's users land after signing in with the Idp: the API itself here (GET /auth/me
 * shows who is logged in); a real application names its front end. serverless.yml fills these from
 * deploy parameters; `npm start` points them at the local development provider.
 */
const appUrl = process.env.APP_URL ?? "http://127.0.0.1:3000";

/** The sample blog: its models, the service types it may configure, and its configuration. */
export const definition: ApplicationDefinition = {
  name: "blog",
  version: pkg.version,
  models: [Post, User, Comment, Tag, PostTag, UserFollow],
  serviceTypes: [VersionService, PublisherService, TestBeanService, GraphQLService, AuthenticationService, IdpProvider],
  services: {
    version: { type: "Version" },
    publisher: { type: "Publisher", prefix: "Published" },
    testbean: { type: "TestBean" },
    graphql: { type: "Framework/GraphQLService" },
    authentication: { type: "Framework/Authentication" },
    idp: {
      type: "Framework/IdpProvider",
      issuer: process.env.IDP_ISSUER ?? "http://127.0.0.1:3003",
      clientId: process.env.IDP_CLIENT_ID ?? "blog-local",
      authorized_uris: [`${appUrl}/auth/me`],
      redirects: { success: `${appUrl}/auth/me`, failure: `${appUrl}/auth/me` },
      allowedEmailDomains: ["example.com"],
    },
  },
};

export function createApp(overrides: Partial<ApplicationDefinition> = {}): Application {
  return new Application({ ...definition, ...overrides });
}

export const app = createApp();
