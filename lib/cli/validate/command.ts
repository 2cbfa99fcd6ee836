import type { Command } from "../commands.ts";
import { formatFinding } from "./findings.ts";
import { validatePackaged } from "./packaged.ts";

export const VALIDATE_USAGE = `usage: webda validate [dir]

Checks every CloudFormation template of a \`serverless package\` directory (default .serverless:
the root stack's and every nested stack's cloudformation-template-*.json) against AWS's published
resource specification (@aws-cdk/aws-service-spec): resource types, property names, types,
required properties, allowed values, Fn::GetAtt attributes. Prints one line per finding; exits 1
when there is an error.`;

export const validateCommand: Command = {
  name: "validate",
  summary: "check a packaged template (serverless package) against AWS's resource specification",
  usage: VALIDATE_USAGE,
  takesOptions: true,
  async run(argv) {
    const [dir = ".serverless", ...extra] = argv;
    if (extra.length > 0 || dir.startsWith("-")) {
      console.error(`webda validate: unknown argument '${extra[0] ?? dir}' (webda validate --help)`);
      return 2;
    }
    let report;
    try {
      report = await validatePackaged(dir);
    } catch (error) {
      // A missing or unpackaged directory is the caller's to fix: say so in one line, no stack.
      console.error(`webda validate: ${(error as Error).message}`);
      return 2;
    }
    for (const finding of report.findings) console.log(formatFinding(finding));
    for (const { finding, allowance } of report.allowed) console.log(`allowed ${formatFinding(finding)} [${allowance.owner}: ${allowance.reason}]`);
    const errors = report.findings.filter((f) => f.severity === "error").length;
    console.log(
      `${report.files.length} templates checked against ${report.source}: ${errors} errors, ${report.findings.length - errors} warnings, ${report.allowed.length} allowed`,
    );
    return errors > 0 ? 1 : 0;
  },
};
