import { Operation, Service, Type, type Context, type Decision, type Static } from "../../lib/index.ts";

const TestOperationInput = Type.Object({ counter: Type.Integer({ minimum: -(2 ** 52), maximum: 2 ** 52 }) });

/** PUT /testbean/testoperation: the counter in hexadecimal (a public sample operation). */
export class TestBeanService extends Service {
  static override readonly type = "TestBean";
  // It reads no data: its IAM role is granted no table.
  static override readonly models = [];

  override canAct(_ctx: Context, _operation: string): Decision {
    return true;
  }

  @Operation({ input: TestOperationInput, output: Type.String(), errors: [] })
  async testOperation({ counter }: Static<typeof TestOperationInput>): Promise<string> {
    return counter.toString(16);
  }
}
