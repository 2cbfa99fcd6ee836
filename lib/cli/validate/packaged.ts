import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { allowanceFor, type Allowance } from "./allowed.ts";
import type { Finding } from "./findings.ts";
import { loadSpec } from "./spec.ts";
import { validateTemplate } from "./template.ts";

export interface PackagedReport {
  /** The specification the templates were checked against. */
  source: string;
  /** The templates checked, relative to the directory. */
  files: string[];
  /** Errors and warnings that no allowance covers. */
  findings: Finding[];
  /** Findings an allowance covers, with it. */
  allowed: { finding: Finding; allowance: Allowance }[];
}

const TEMPLATE = /^cloudformation-template-.+\.json$/;

/**
 * Every template of a `serverless package` directory (the root's create and update templates and
 * every nested stack's) against AWS's published resource specification.
 */
export async function validatePackaged(dir: string): Promise<PackagedReport> {
  const spec = await loadSpec();
  const files = (await readdir(dir)).filter((f) => TEMPLATE.test(f)).sort();
  if (files.length === 0) throw new Error(`${dir} holds no cloudformation-template-*.json: run \`serverless package --package ${dir}\` first`);
  const report: PackagedReport = { source: spec.source, files, findings: [], allowed: [] };
  for (const file of files) {
    const template = JSON.parse(await readFile(join(dir, file), "utf8")) as unknown;
    for (const finding of validateTemplate(spec, template, file)) {
      const allowance = allowanceFor(finding);
      if (allowance) report.allowed.push({ finding, allowance });
      else report.findings.push(finding);
    }
  }
  return report;
}
