import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Application } from "../../core/application.ts";
import type { CfnTemplate } from "../../core/serverless-host.ts";
import { infrastructureCache } from "../infrastructure.ts";
import { usageError, type Command, type Output } from "../commands.ts";
import { formatFinding } from "../validate/findings.ts";
import { loadSpec } from "../validate/spec.ts";
import { validateTemplate } from "../validate/template.ts";
import { readProject } from "../project.ts";
import { blocking, planTables } from "./diff.mjs";
import { renderPlan } from "./render.mjs";
import { stepTemplates } from "./steps.mjs";
import { tableResources, templateTables } from "./tables.mjs";

export const PLAN_USAGE = `usage: webda plan --stage STAGE --baseline DIR [--target DIR] [--accept ID]... [--steps-dir DIR]

Prints, offline, what deploying the current application changes in its tables, against what a
previous \`serverless package\` wrote (DIR: its .serverless directory, the root's and nested
stacks' cloudformation-template-*.json): per table the indexes created and deleted, key changes,
renamed and removed tables, stream and TTL changes, and the deploys (steps) they take: one index
per table per update. \`serverless deploy\` makes the same comparison against the deployed stack.

  --stage STAGE     the stage the baseline was packaged for (table names: <service>-<stage>-<Model>)
  --baseline DIR    the previous package (what is deployed)
  --target DIR      compare with this package instead of the application's tables as built now
  --service NAME    the service name (default: serverless.yml's \`service\`)
  --accept ID       accept the removal or replacement of this table (logical id, e.g. PostTable):
                    its records stay in the retained table, to copy with \`webda db copy\`
  --steps-dir DIR   write each step's template there (step-1.json, ...)

Every step's template is checked against AWS's resource specification (as \`webda validate\`).
Exit codes: 0 the plan deploys; 1 a change a deploy cannot carry out (each named with the command
to run) or a step that fails validation; 2 bad arguments or no baseline.`;

const TEMPLATE = /^cloudformation-template-(update-stack|nested-.+)\.json$/;

/** The root (update) template and the nested ones of a `serverless package` directory. */
export async function packagedTemplates(dir: string): Promise<CfnTemplate[]> {
  const files = (await readdir(dir)).filter((f) => TEMPLATE.test(f)).sort();
  if (!files.includes("cloudformation-template-update-stack.json")) {
    throw new Error(`${dir} holds no cloudformation-template-update-stack.json: give the .serverless directory of a \`serverless package\``);
  }
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(dir, f), "utf8")) as CfnTemplate));
}

/**
 * The application's tables as the packaging renders them (schema-cache/resources.json, through
 * the same renderer), with the table prefix serverless.yml gives a stage resolved.
 */
export async function applicationTables(app: Application, prefix: string): Promise<CfnTemplate> {
  const files = await infrastructureCache(app);
  const rendered = (files["resources.json"] ?? "{}").replaceAll("${self:custom.tablePrefix}", prefix);
  const { Resources } = JSON.parse(rendered) as CfnTemplate;
  return { Resources: Object.fromEntries(tableResources({ Resources })) };
}

async function serviceName(root: string): Promise<string> {
  // serverless.yml names its service after package.json's `webda.project` (lib/cli/project.ts).
  return readProject(root).project;
}

/** `io`: where the plan and the errors go (stdout, stderr; a test reads them). */
export function planCommand(app: Application | (() => Promise<Application>), root: string, io: Output = { out: console.log, err: console.error }): Command {
  const { out, err } = io;
  return {
    name: "plan",
    summary: "what deploying changes in the tables, against a previous `serverless package` (indexes, keys, renames, steps)",
    usage: PLAN_USAGE,
    takesOptions: true,
    async run(argv) {
      let values;
      try {
        ({ values } = parseArgs({
          args: argv,
          strict: true,
          allowPositionals: false,
          options: {
            stage: { type: "string" },
            baseline: { type: "string" },
            target: { type: "string" },
            service: { type: "string" },
            accept: { type: "string", multiple: true, default: [] },
            "steps-dir": { type: "string" },
          },
        }));
        if (!values.stage) throw new Error("--stage: which stage? (the baseline's)");
        if (!values.baseline) throw new Error("--baseline: which package? (the .serverless directory of what is deployed)");
      } catch (error) {
        err(usageError("plan", error));
        return 2;
      }
      let baseline: CfnTemplate[];
      let target: CfnTemplate;
      try {
        baseline = await packagedTemplates(values.baseline);
        if (values.target) {
          const [root] = (await packagedTemplates(values.target)).filter((t) => Object.values(t.Resources).some((r) => r.Type === "AWS::DynamoDB::Table"));
          if (!root) throw new Error(`${values.target} holds no table`);
          target = root;
        } else
          target = await applicationTables(typeof app === "function" ? await app() : app, `${values.service ?? (await serviceName(root))}-${values.stage}-`);
      } catch (error) {
        err(`webda plan: ${(error as Error).message}`);
        return 2;
      }
      const deploy = `serverless deploy --stage ${values.stage}`;
      const plan = planTables(templateTables(baseline), templateTables([target]), { accept: values.accept, deploy });
      for (const line of renderPlan(plan, { deploy })) out(line);
      const refused = blocking(plan).length > 0;
      // The steps are what a deploy would apply: checked even when refused, to show them sound.
      const steps = stepTemplates(baseline, target);
      const spec = await loadSpec();
      let invalid = 0;
      for (const [i, step] of steps.entries()) {
        const file = `step-${i + 1}.json`;
        const findings = validateTemplate(spec, step, file).filter((f) => f.severity === "error");
        for (const finding of findings) out(formatFinding(finding));
        invalid += findings.length;
        if (values["steps-dir"]) {
          await mkdir(values["steps-dir"], { recursive: true });
          await writeFile(join(values["steps-dir"], file), `${JSON.stringify(step, null, 2)}\n`);
        }
      }
      out(`${steps.length} step template(s) checked against ${spec.source}: ${invalid} errors`);
      return refused || invalid > 0 ? 1 : 0;
    },
  };
}
