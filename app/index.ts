import pkg from "../package.json" with { type: "json" };
import { Application, GraphQLService, type ApplicationDefinition, type ModelClass } from "../lib/index.ts";
import * as models from "./models/index.ts";
import { PublisherService } from "./services/publisher.ts";
import { TestBeanService } from "./services/testbean.ts";
import { VersionService } from "./services/version.ts";

/** The sample blog: its models, the service types it may configure, and its configuration. */
export const definition: ApplicationDefinition = {
  name: "blog",
  version: pkg.version,
  models: Object.values(models) as ModelClass[],
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
