import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { roleMap } from "../../lib/cli/roles.ts";
import { serverlessFunctions } from "../../lib/rest/functions.ts";
import { deriveRoutes } from "../../lib/rest/routes.ts";
import { authFunctions } from "../../lib/auth/routes/serverless.ts";
import { definition } from "../fixtures/blog/index.ts";
import { inProcess } from "../support/parts.ts";

/** `{ Action, Resource }` statements as "action logicalId" pairs (`/index/*` marked). */
function grants(statements: Record<string, unknown>[]): string[] {
  return statements.flatMap((s) =>
    (s.Action as string[]).flatMap((a) =>
      (s.Resource as Record<string, unknown>[]).map((r) => {
        const join = r["Fn::Join"] as [string, [{ "Fn::GetAtt": [string] }, string]] | undefined;
        if (join) return `${a} ${join[1][0]["Fn::GetAtt"][0]}/index`;
        const getAtt = r["Fn::GetAtt"] as [string] | undefined;
        return `${a} ${getAtt ? getAtt[0] : JSON.stringify(r)}`;
      }),
    ),
  );
}

const appOf = (packaging: "route" | "model" | "single") => new Application({ ...definition, rest: { ...definition.rest, packaging } }, inProcess);

describe("each function's role in schema-cache/roles.json", () => {
  it("names a role for every derived REST and auth function, in every packaging mode", () => {
    for (const packaging of ["route", "model", "single"] as const) {
      const app = appOf(packaging);
      const map = roleMap(app);
      const names = [...Object.keys(serverlessFunctions(deriveRoutes(app), app.definition.rest)), ...Object.keys(authFunctions(app))];
      expect(Object.keys(map.functions).sort()).toEqual(names.sort());
      for (const role of Object.values(map.functions)) expect(map.roles[role], `${packaging}: ${role}`).toBeDefined();
    }
  });

  it("per route: a record read reads its table by key, a query lists it; the other routes write it; parents are read by key", () => {
    const { roles, functions } = roleMap(appOf("route"));
    // A record read (functions/rest-read, which reads no secret) has a role of its own, apart from
    // the query's (functions/rest, whose continuation tokens need the application secret).
    expect(functions["rest-post-get"]).toBe("PostsReadRole");
    expect(functions["rest-post-query"]).toBe("PostsQueryRole");
    expect(functions["rest-post-delete"]).toBe("PostsWriteRole");
    expect(grants(roles.PostsReadRole ?? []).filter((g) => g.includes("PostTable"))).toEqual(["dynamodb:GetItem PostTable", "dynamodb:BatchGetItem PostTable"]);
    const read = grants(roles.PostsQueryRole ?? []);
    expect(read).toContain("dynamodb:Query PostTable/index");
    expect(read.filter((g) => /Put|Update|Delete|BatchWrite/.test(g))).toEqual([]);
    expect(grants(roles.CommentsWriteRole ?? [])).toEqual(expect.arrayContaining(["dynamodb:PutItem CommentTable", "dynamodb:BatchGetItem PostTable"]));
    expect(grants(roles.CommentsWriteRole ?? [])).not.toContain("dynamodb:PutItem PostTable");
    // A service names its models: the publisher writes posts, the version service reads nothing.
    expect(grants(roles.PublisherServiceRole ?? [])).toContain("dynamodb:UpdateItem PostTable");
    expect(grants(roles.PublisherServiceRole ?? []).filter((g) => g.includes("TagTable"))).toEqual([]);
    expect(grants(roles.VersionServiceRole ?? [])).toEqual(["dynamodb:GetItem AuthSessionsTable", "dynamodb:BatchGetItem AuthSessionsTable"]);
    expect(functions["auth-jwks"]).toBe("LogsOnlyRole");
    expect(roles.LogsOnlyRole).toEqual([]);
  });

  it("model and single packaging: one function's role is the union of its routes'", () => {
    const model = roleMap(appOf("model"));
    expect(model.functions["rest-post"]).toBe("PostsWriteRole");
    expect(model.functions.auth).toBe("AuthRole");
    // The one auth function rotates refresh tokens too (the session routes), so it reads them.
    expect(grants(model.roles.AuthRole ?? [])).toContain("dynamodb:GetItem AuthRefreshTable");
    expect(grants(roleMap(appOf("route")).roles.AuthRole ?? [])).not.toContain("dynamodb:GetItem AuthRefreshTable");
    const single = roleMap(appOf("single"));
    expect(single.functions.rest).toBe("RestRole");
    const rest = grants(single.roles.RestRole ?? []);
    for (const info of appOf("single").models()) expect(rest).toContain(`dynamodb:PutItem ${info.name}Table`);
    expect(rest.filter((g) => /Auth(Idents|Refresh|IdpStates)Table/.test(g) || g.startsWith("ses:") || g.startsWith("execute-api:"))).toEqual([]);
  });

  it("grants PartiQL SELECT only where code runs it: GraphQL's batched child lists, a user's auth rows, the subscriptions' lookups", () => {
    for (const packaging of ["route", "model", "single"] as const) {
      const { roles } = roleMap(appOf(packaging));
      const partiql = (role: string) => grants(roles[role] ?? []).filter((g) => g.startsWith("dynamodb:PartiQLSelect"));
      const expected: Record<string, string[]> = {
        // The children of a contains relation (a Post's comments) and the join rows of a many-to-many one (its tags).
        GraphqlRole: ["CommentTable", "CommentTable/index", "PostTagTable", "PostTagTable/index"].map((t) => `dynamodb:PartiQLSelect ${t}`),
        WebsocketRole: ["dynamodb:PartiQLSelect WsSubscriptionsTable", "dynamodb:PartiQLSelect WsSubscriptionsTable/index"],
        StreamRole: ["dynamodb:PartiQLSelect WsSubscriptionsTable", "dynamodb:PartiQLSelect WsSubscriptionsTable/index"],
        FanoutRole: ["dynamodb:PartiQLSelect WsSubscriptionsTable", "dynamodb:PartiQLSelect WsSubscriptionsTable/index"],
      };
      for (const role of Object.keys(roles)) {
        if (role.startsWith("Auth")) {
          expect(partiql(role).sort(), `${packaging}: ${role}`).toEqual(
            ["AuthIdentsTable", "AuthIdentsTable/index", "AuthSessionsTable", "AuthSessionsTable/index"].map((t) => `dynamodb:PartiQLSelect ${t}`),
          );
        } else expect(partiql(role).sort(), `${packaging}: ${role}`).toEqual((expected[role] ?? []).sort());
      }
    }
  });

  it("lets the mail-sending role send only as the configured sender: its identity, and ses:FromAddress", () => {
    const mail = (from: string) =>
      roleMap(
        new Application({ ...definition, services: { ...definition.services, mailer: { type: "Framework/Mailer", from } } }, inProcess),
      ).roles.AuthRole?.filter((s) => (s.Action as string[]).includes("ses:SendEmail"));
    expect(mail("no-reply@blog.example.com")).toEqual([
      {
        Effect: "Allow",
        Action: ["ses:SendEmail"],
        Resource: [
          { "Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/no-reply@blog.example.com" },
          { "Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/blog.example.com" },
        ],
        Condition: { StringEquals: { "ses:FromAddress": ["no-reply@blog.example.com"] } },
      },
    ]);
    // A display name is not part of the address SES compares.
    expect(mail("The Blog <News@Blog.example.com>")?.[0]?.Condition).toEqual({ StringEquals: { "ses:FromAddress": ["News@Blog.example.com"] } });
    // No other role may send mail at all.
    const { roles } = roleMap(appOf("route"));
    for (const [role, statements] of Object.entries(roles)) {
      if (role !== "AuthRole")
        expect(
          statements.filter((s) => JSON.stringify(s.Action).includes("ses:")),
          role,
        ).toEqual([]);
    }
  });
});
