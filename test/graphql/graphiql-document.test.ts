import { parse, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model, type Action, type Decision, type FieldReader } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { defaultDocument } from "../../lib/graphql/graphiql-page.ts";
import { buildGraphQLSchema } from "../../lib/graphql/schema.ts";
import { GraphQLService } from "../../lib/graphql/service.ts";
import { inProcess } from "../support/parts.ts";

/** A fixture of the test's own: an application that is not the sample, with a field few may read. */
class Gadget extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["code"] as const;
  static override readonly schema = Type.Object({
    code: Type.String(),
    label: Type.String(),
    weight: Type.Number(),
    secret: Type.Optional(Type.String()),
    parts: Type.Array(Type.String()),
  });
  static override readonly fieldReaders: Readonly<Record<string, FieldReader>> = { secret: () => false };
  override canAct(_ctx: unknown, _action: Action): Decision {
    return true;
  }
}

function gadgets(graphql: Record<string, unknown> = {}): Application {
  return new Application(
    {
      name: "gadgets",
      version: "0",
      models: [Gadget],
      serviceTypes: [GraphQLService],
      services: { graphql: { type: "Framework/GraphQLService", ...graphql } },
    },
    inProcess,
  );
}

describe("GraphiQL's starting document", () => {
  it("without one configured, lists the first model's plain fields that everyone reads, and is a valid query of the schema", () => {
    const app = gadgets();
    const document = defaultDocument(app);
    expect(document).toContain("# The gadgets GraphQL API.");
    expect(document).toMatch(/Gadgets\(limit: 10\)/);
    expect(document).toMatch(/^ {6}code$/m);
    expect(document).toMatch(/^ {6}weight$/m);
    expect(document).not.toMatch(/secret|parts/);
    expect(validate(buildGraphQLSchema(app), parse(document))).toEqual([]);
  });

  it("is the application's own when the GraphQL service names one", () => {
    expect(defaultDocument(gadgets({ graphiqlDocument: "query Mine { Gadgets { results { code } } }" }))).toBe("query Mine { Gadgets { results { code } } }");
  });
});
