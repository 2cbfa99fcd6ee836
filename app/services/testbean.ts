import type { Context } from "../../lib/core/context.ts";
import type { Decision } from "../../lib/core/model.ts";
import { Operation } from "../../lib/core/operation.ts";
import { Type, type Static } from "../../lib/core/schema.ts";
import { Service } from "../../lib/core/service.ts";

const TestOperationInput = Type.Object({ counter: Type.Integer({ minimum: -(2 ** 52), maximum: 2 ** 52 }) });

/** PUT /testbean/testoperation: the counter in hexadecimal (a public sample operation). */
export class TestBeanService extends Service {
  static override readonly type = "TestBean";

  override canAct(_ctx: Context, _operation: string): Decision {
    return true;
  }

  @Operation({ input: TestOperationInput, output: Type.String(), errors: [] })
  async testOperation({ counter }: Static<typeof TestOperationInput>): Promise<string> {
    return counter.toString(16);
  }
}
