import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Context } from "../../lib/core/context.ts";
import { Model, type Action, type Decision } from "../../lib/core/model.ts";
import { describeModel } from "../../lib/core/model-info.ts";
import { Operation } from "../../lib/core/operation.ts";
import { toOutput } from "../../lib/core/records.ts";
import { Type } from "../../lib/core/schema.ts";
import { Service } from "../../lib/core/service.ts";
import { openApiDocument } from "../../lib/rest/openapi.ts";
import { deriveRoutes, readsBody } from "../../lib/rest/routes.ts";
import { blog } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

const loaded = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = loaded.default ?? loaded;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A model only signed-in members read, with a field only its owner sees, and an operation that declares its errors. */
class Note extends Model {
  static override readonly schema = Type.Object({
    uuid: Type.String({ format: "uuid" }),
    owner: Type.String(),
    secret: Type.Optional(Type.String()),
    text: Type.String(),
  });
  static override readonly fieldReaders = {
    secret: (ctx: Context, note?: Readonly<Record<string, unknown>>) => note !== undefined && ctx.getCurrentUserId() === note.owner,
  };
  override canAct(ctx: Context, action: Action): Decision {
    if (ctx.getCurrentUserId() === undefined) return "members only";
    return action === "read" || action === "create" || ctx.getCurrentUserId() === (this as unknown as { owner: string }).owner ? true : "owner only";
  }
  @Operation({ errors: [] })
  async pin(): Promise<void> {}
}
class Search extends Service {
  static override readonly type = "Search";
  override canAct(): Decision {
    return true;
  }
  @Operation({ input: Type.Object({ q: Type.String() }), output: Type.Array(Type.String()), rest: { method: "GET" } })
  async find(): Promise<string[]> {
    return [];
  }
}
const notes = new Application({ name: "notes", version: "1.0.0", models: [Note], serviceTypes: [Search], services: { search: { type: "Search" } } }, inProcess);

function doc(app: Application): Json {
  return openApiDocument(app, deriveRoutes(app)) as Json;
}

describe("the OpenAPI document follows the runtime's definitions", () => {
  it("marks a restricted field optional and the default redact hides it from everyone the rule refuses", () => {
    const note = doc(notes).components.schemas.Note;
    expect(note.required).toEqual(expect.arrayContaining(["uuid", "owner", "text", "createdAt", "updatedAt"]));
    expect(note.required).not.toContain("secret");
    const info = describeModel(Note);
    const record = { uuid: "u", owner: "ann", secret: "s", text: "t" };
    expect(toOutput(new Context({ userId: "ann" }), info, record)).toHaveProperty("secret", "s");
    expect(toOutput(new Context({ userId: "bob" }), info, record)).not.toHaveProperty("secret");
    const user = doc(blog()).components.schemas.User;
    expect(user.required).not.toContain("email");
    expect(user.properties.uuid.format).toBeUndefined(); // the identity's id, not a generated UUID
    expect(doc(blog()).components.schemas.Post.required).toContain("author");
  });

  it("derives security and 401/403 from the policy: members-only reads need credentials, public ones make them optional", () => {
    const paths = doc(notes).paths;
    const signedIn = [{ bearerAuth: [] }, { sessionCookie: [] }];
    expect(paths["/notes/{uuid}"].get.security).toEqual(signedIn);
    expect(Object.keys(paths["/notes/{uuid}"].get.responses)).not.toContain("401"); // a refused read is a 404
    expect(Object.keys(paths["/notes/{uuid}"].patch.responses)).toEqual(expect.arrayContaining(["401", "403", "404", "412"]));
    expect(Object.keys(paths["/notes"].post.responses)).not.toContain("403"); // any member may create
    expect(Object.keys(paths["/notes"].post.responses)).not.toContain("409"); // a random key never collides
    expect(Object.keys(paths["/notes/{uuid}/pin"].put.responses).sort()).toEqual(["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"]);
    const blogPaths = doc(blog()).paths;
    expect(blogPaths["/posts/{slug}"].get.security).toEqual([{}, ...signedIn]); // published posts are public
    expect(blogPaths["/publisher/publish"].put.security).toEqual([{}, ...signedIn]); // publish touches no data: public
    expect(blogPaths["/publisher/publishpost"].put.security).toEqual(signedIn);
    expect(Object.keys(blogPaths["/version"].get.responses).sort()).toEqual(["200", "500"]);
    expect(Object.keys(doc(blog()).components.securitySchemes)).toEqual(["bearerAuth", "sessionCookie"]);
  });

  it("takes a GET operation's parameters from the query string, strings only", () => {
    const find = doc(notes).paths["/search/find"].get;
    expect(find.parameters).toEqual([{ name: "q", in: "query", required: true, schema: { type: "string" } }]);
    expect(find.requestBody).toBeUndefined();
    class Bad extends Service {
      static override readonly type = "Bad";
      @Operation({ input: Type.Object({ n: Type.Integer() }), rest: { method: "GET" } })
      async count(): Promise<void> {}
    }
    const bad = new Application({ name: "bad", version: "1", models: [], serviceTypes: [Bad], services: { bad: { type: "Bad" } } }, inProcess);
    expect(() => deriveRoutes(bad)).toThrow(/'n' must be a string/);
    const routes = deriveRoutes(blog());
    expect(routes.filter((r) => !readsBody(r)).map((r) => r.key)).toEqual(
      expect.arrayContaining(["GET /posts/{slug}", "DELETE /posts/{slug}", "GET /version", "GET /openapi.json"]),
    );
    expect(routes.filter((r) => readsBody(r)).map((r) => r.key)).toEqual(
      expect.arrayContaining(["POST /posts", "PUT /posts", "PATCH /posts/{slug}", "PUT /posts/{slug}/publish"]),
    );
  });

  it("bounds query limits by the model's limits and lets patch remove optional fields only", () => {
    const schemas = doc(blog()).components.schemas;
    expect(schemas.PostQuery.properties.limit).toMatchObject({ minimum: 1, maximum: 1000 });
    expect(schemas.PostQuery.properties.offset.deprecated).toBe(true);
    expect(schemas.PostPatch.properties.title.anyOf).toBeUndefined();
    expect(schemas.PostPatch.properties.viewCount.anyOf).toContainEqual({ type: "null" });
    expect(schemas.PostReplace.required).not.toContain("slug");
  });

  it("gives every model schema and request body an example its schema accepts", () => {
    for (const document of [doc(blog()), doc(notes)]) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ ...document, $id: "doc" });
      const refs = (value: unknown): unknown =>
        Array.isArray(value)
          ? value.map(refs)
          : value && typeof value === "object"
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" ? `doc${v}` : refs(v)]))
            : value;
      let checked = 0;
      for (const [name, schema] of Object.entries<Json>(document.components.schemas)) {
        for (const example of schema.examples ?? []) {
          const validate = ajv.compile(refs(schema) as Json);
          expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked++;
        }
      }
      for (const item of Object.values<Json>(document.paths)) {
        for (const op of Object.values<Json>(item)) {
          const media = op.requestBody?.content?.["application/json"];
          if (!media?.example) continue;
          const validate = ajv.compile(refs(media.schema) as Json);
          expect(validate(media.example), `${op.operationId}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(5);
    }
  });
});
