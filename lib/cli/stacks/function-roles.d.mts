export const FRAMEWORK_ROLE: "IamRoleLambdaExecution";
export function assignFunctionRoles(
  template: { Resources: Record<string, unknown> },
  functions: Record<string, { handler?: string; events?: object[] }>,
  map: { roles: Record<string, object[]>; functions: Record<string, string>; handlers: Record<string, string> },
  logicalIdOf: (name: string) => string,
): string[];
export function narrowLogStatements(template: { Resources: Record<string, unknown> }): void;
