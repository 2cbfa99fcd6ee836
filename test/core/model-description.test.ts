import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Application } from "../../lib/core/application.ts";
import { Model } from "../../lib/core/model.ts";
import { Type } from "../../lib/core/schema.ts";
import { recordReadRoutes } from "../../lib/rest/read-routes.ts";
import { deriveRoutes, isRecordRead } from "../../lib/rest/routes.ts";
import { blog } from "../support/blog.ts";
import { inProcess } from "../support/parts.ts";

const run = promisify(execFile);

class Keyless extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["code"] as const;
  static override readonly schema = Type.Object({ name: Type.String() });
}
class Pair extends Model {
  static override readonly FRAMEWORK_PRIMARY_KEY = ["left", "right"] as const;
  static override readonly schema = Type.Object({ left: Type.String(), right: Type.Integer() });
  static override readonly plural = "pairings";
}

describe("model descriptions", () => {
  it("where configuration is checked (here, npm start, the CLI), a bad model declaration stops the start", () => {
    expect(() => new Application({ name: "t", version: "1", models: [Keyless], serviceTypes: [], services: {} }, inProcess)).toThrow(
      /Keyless: key field 'code' is not in the schema/,
    );
  });

  it("in a Lambda function (nothing checks configuration there) a model is described when first used", async () => {
    // A fresh process without the tests' setup: no options checker installed, as in functions/.
    const script = `
      import { Application } from "./lib/core/application.ts";
      import { Model } from "./lib/core/model.ts";
      import { Type } from "./lib/core/schema.ts";
      class Keyless extends Model {
        static FRAMEWORK_PRIMARY_KEY = ["code"];
        static schema = Type.Object({ name: Type.String() });
      }
      class Fine extends Model { static schema = Type.Object({ uuid: Type.String() }); }
      const app = new Application({ name: "t", version: "1", models: [Keyless, Fine], serviceTypes: [], services: {} });
      const fine = app.model("Fine");
      let error = "none";
      try { app.model("Keyless"); } catch (e) { error = e.message; }
      console.log(JSON.stringify({ built: true, fine: fine.plural, error }));
    `;
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(JSON.parse(stdout.trim().split("\n").pop() ?? "{}")).toEqual({
      built: true,
      fine: "fines",
      error: "Keyless: key field 'code' is not in the schema",
    });
  }, 30_000);

  it("the record-read routes from the declarations alone are the ones deriveRoutes derives", () => {
    for (const app of [blog(), new Application({ name: "p", version: "1", models: [Pair], serviceTypes: [], services: {} }, inProcess)]) {
      expect(recordReadRoutes(app)).toEqual(deriveRoutes(app).filter(isRecordRead));
    }
  });
});
