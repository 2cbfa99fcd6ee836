import { Operation, Service, Type, type Context, type Decision } from "../../lib/index.ts";

/** GET /version: the application's version string, public. */
export class VersionService extends Service {
  static override readonly type = "Version";
  // It reads no data: its IAM role is granted no table.
  static override readonly models = [];

  override canAct(_ctx: Context, _operation: string): Decision {
    return true;
  }

  @Operation({ output: Type.String(), rest: { method: "GET", path: "/version" }, errors: [] })
  async version(): Promise<string> {
    return this.app.version;
  }
}
