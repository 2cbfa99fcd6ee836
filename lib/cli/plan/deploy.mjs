// @ts-check
// The plan a `serverless deploy` makes before CloudFormation is asked (../serverless-plugin.mjs):
// the template about to be deployed against the deployed stack's (GetTemplate). A refused change
// stops the deploy; several index changes on a table deploy the first step only, and the log
// says to run the same deploy again for the next (docs/changing-a-deployed-application.md).
import { blocking, planTables } from "./diff.mjs";
import { renderPlan } from "./render.mjs";
import { stepTemplates } from "./steps.mjs";
import { templateTables } from "./tables.mjs";
/** @import { CfnTemplate, Serverless } from "../../core/serverless-host.ts" */
/** @import { Plan } from "./diff.mjs" */

/** The deploy parameter that accepts a table's removal or replacement: `--param acceptTableChanges=PostTable,TagTable`. */
export const ACCEPT_PARAM = "acceptTableChanges";

/**
 * @typedef {{ plan: Plan, lines: string[], refused: boolean, template: CfnTemplate, step: number, steps: number }} DeployPlan
 */

/**
 * What this deploy applies: the template itself, its first step, or nothing (refused).
 * @param {CfnTemplate | undefined} deployed the deployed root template; undefined on a first deploy
 * @param {CfnTemplate} compiled the root template about to be deployed
 * @param {{ accept: string[], deploy: string }} options
 * @returns {DeployPlan}
 */
export function planDeploy(deployed, compiled, { accept, deploy }) {
  if (!deployed) {
    return {
      plan: { tables: [], refusals: [], steps: 1 },
      lines: ["tables: first deploy, every table created"],
      refused: false,
      template: compiled,
      step: 1,
      steps: 1,
    };
  }
  const plan = planTables(templateTables([deployed]), templateTables([compiled]), { accept, deploy });
  const refused = blocking(plan).length > 0;
  const steps = stepTemplates([deployed], compiled);
  const lines = renderPlan(plan, { deploy });
  // Step 1 of several: the next deploy compares with what this one leaves, and applies step 2.
  if (!refused && steps.length > 1) lines.push(`this deploy applies step 1 of ${steps.length}; run \`${deploy}\` again for the next`);
  return { plan, lines, refused, template: /** @type {CfnTemplate} */ (steps[0]), step: 1, steps: steps.length };
}

/**
 * The table ids the deploy accepts, from `--param acceptTableChanges=...` or serverless.yml `params`.
 * @param {Serverless} serverless
 * @returns {string[]}
 */
export function acceptedTables(serverless) {
  const cli = [serverless.processedInput?.options?.param ?? []].flat().flatMap((item) => {
    const [name, ...value] = String(item).split("=");
    return name === ACCEPT_PARAM ? [value.join("=")] : [];
  });
  const params = serverless.configurationInput?.params ?? {};
  const stage = serverless.service.provider.stage;
  const configured = [stage ? params[stage] : undefined, params.default].map((set) => set?.[ACCEPT_PARAM]).filter((v) => typeof v === "string");
  return [...cli, ...configured]
    .flatMap((v) => String(v).split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/**
 * What the plan asks of the AWS provider beyond lib/core's view of it.
 * @typedef {import("../../core/serverless-host.ts").AwsProvider & {
 *   naming: { getStackName(): string },
 *   request(service: string, method: string, params: Record<string, unknown>): Promise<{ TemplateBody?: unknown }>,
 * }} DeployProvider
 */
