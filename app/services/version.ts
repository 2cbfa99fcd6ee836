import type { Context } from "../../lib/core/context.ts";
import type { Decision } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type } from "../../lib/core/schema.ts";
import { Service } from "../../lib/core/service.ts";

/** GET /version: the application's version string, public. */
export class VersionService extends Service {
  static override readonly type = "Version";

  override canAct(_ctx: Context, _operation: string): Decision {
    return true;
  }

  @Operation({ output: Type.String(), rest: { method: "GET", path: "/version" }, errors: [] })
  async version(): Promise<string> {
    return this.app.version;
  }
}
