import { formatFinding } from "../../lib/cli/validate/findings.ts";
import { validatePackaged } from "../../lib/cli/validate/packaged.ts";

/**
 * The errors `webda validate` finds in a packaged directory, one line each (so a failing
 * assertion shows them all). Warnings and the findings lib/cli/validate/allowed.ts lets pass are
 * printed, not returned.
 */
export async function specErrors(dir: string): Promise<string[]> {
  const report = await validatePackaged(dir);
  for (const f of report.findings.filter((f) => f.severity === "warning")) console.log(formatFinding(f));
  for (const { finding, allowance } of report.allowed) console.log(`allowed ${formatFinding(finding)} [${allowance.owner}: ${allowance.reason}]`);
  return report.findings.filter((f) => f.severity === "error").map(formatFinding);
}
