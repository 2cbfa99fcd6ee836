import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { dependsOn, referencesIn } from "../../lib/cli/stacks/references.mjs";

export interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DependsOn?: string | string[];
}

export interface Template {
  Parameters?: Record<string, unknown>;
  Resources: Record<string, Resource>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** A packaged stack: the root (`id` "root") or a nested one, named by its resource in the root. */
export interface Stack {
  id: string;
  template: Template;
}

/** The file a nested stack's TemplateURL names (the last path segment of its Fn::Sub). */
function nestedFile(resource: Resource): string {
  const url = resource.Properties.TemplateURL as { "Fn::Sub": string };
  return url["Fn::Sub"].split("/").at(-1) as string;
}

/** The root template of a `serverless package` directory and every nested template it names. */
export async function loadStacks(dir: string): Promise<Stack[]> {
  const root = JSON.parse(await readFile(join(dir, "cloudformation-template-update-stack.json"), "utf8")) as Template;
  const stacks: Stack[] = [{ id: "root", template: root }];
  for (const [id, resource] of Object.entries(root.Resources)) {
    if (resource.Type !== "AWS::CloudFormation::Stack") continue;
    stacks.push({ id, template: JSON.parse(await readFile(join(dir, nestedFile(resource)), "utf8")) as Template });
  }
  return stacks;
}

/** Every resource of every stack. */
export function allResources(stacks: Stack[]): Resource[] {
  return stacks.flatMap((s) => Object.values(s.template.Resources));
}

/**
 * What does not resolve inside its own stack: a Ref to neither a resource nor a parameter of the
 * same template, a GetAtt or DependsOn on a resource the template does not declare, a nested
 * stack's output the child does not declare, a parameter the root does not pass or passes without
 * the child declaring it.
 */
export function unresolved(stacks: Stack[]): string[] {
  const problems: string[] = [];
  const byId = new Map(stacks.map((s) => [s.id, s.template]));
  for (const { id, template } of stacks) {
    const values: [string, unknown][] = [
      ...Object.entries(template.Resources).map(([rid, r]) => [rid, r] as [string, unknown]),
      ...Object.entries(template.Outputs ?? {}).map(([oid, o]) => [`output ${oid}`, o] as [string, unknown]),
    ];
    for (const [where, value] of values) {
      for (const reference of referencesIn(value)) {
        const { target } = reference;
        if (reference.kind === "ref") {
          if (!(target in template.Resources) && !(target in (template.Parameters ?? {}))) problems.push(`${id}/${where}: Ref ${target}`);
          continue;
        }
        if (!(target in template.Resources)) {
          problems.push(`${id}/${where}: GetAtt ${target}.${reference.attribute}`);
          continue;
        }
        if (reference.attribute.startsWith("Outputs.")) {
          const child = byId.get(target);
          if (!child || !(reference.attribute.slice("Outputs.".length) in (child.Outputs ?? {})))
            problems.push(`${id}/${where}: GetAtt ${target}.${reference.attribute}`);
        }
      }
    }
    for (const [rid, resource] of Object.entries(template.Resources)) {
      for (const dep of dependsOn(resource)) if (!(dep in template.Resources)) problems.push(`${id}/${rid}: DependsOn ${dep}`);
      if (resource.Type !== "AWS::CloudFormation::Stack") continue;
      const child = byId.get(rid);
      if (!child) {
        problems.push(`${id}/${rid}: no template`);
        continue;
      }
      const passed = Object.keys((resource.Properties.Parameters ?? {}) as Record<string, unknown>).sort();
      const declared = Object.keys(child.Parameters ?? {}).sort();
      if (JSON.stringify(passed) !== JSON.stringify(declared)) problems.push(`${id}/${rid}: passes [${passed.join(",")}], declares [${declared.join(",")}]`);
    }
  }
  return problems;
}
