import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { documentedParameters, parameterUses, type ParameterUse } from "../support/deploy-parameters.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const yaml = await readFile(`${root}serverless.yml`, "utf8");
const page = await readFile(`${root}docs/deploying.md`, "utf8");
const rows = documentedParameters(page, "## Deploy parameters");
/** `provider.region` reads `${opt:region, param:region}`, a parameter with its default under `params:`. */
const REGION: ParameterUse = { name: "region", fallback: /^\s+region:\s*(\S+)/m.exec(yaml.slice(yaml.indexOf("params:")))?.[1] };

/** The fallback as the table writes it: `none` for no value, the text without its YAML quotes. */
function shownDefault(fallback: string | undefined): string {
  // `env:X, ...` serves `npm start`, which sets X: a deployed stage sees what follows it.
  const deployed = (fallback ?? "null").replace(/^env:[A-Z_]+,\s*/, "").trim();
  if (["null", "''", "'unset'"].includes(deployed)) return "none";
  return deployed.replace(/^'(.*)'$/, "$1");
}

/** The command at the top of the page, as a newcomer pastes it. */
function deployCommand(): string {
  const block = /^# Deploying\n\n((?: {4}.*\n)+)/m.exec(page)?.[1];
  if (!block) throw new Error("docs/deploying.md opens without its deploy command");
  return block
    .split("\n")
    .map((line) => line.slice(4))
    .join("\n")
    .replace(/\\\n\s*/g, " ")
    .trim();
}

describe("docs/deploying.md, Deploy parameters", () => {
  const uses = [...parameterUses(yaml), REGION];
  const firstUse = new Map<string, ParameterUse>();
  for (const use of uses) if (!firstUse.has(use.name)) firstUse.set(use.name, use);

  it("lists every parameter serverless.yml reads, once, and no other", () => {
    const names = rows.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...firstUse.keys()].sort());
  });

  it("shows each optional parameter's default as serverless.yml writes it", () => {
    for (const row of rows) {
      if (/^(required|local only)/.test(row.requirement)) continue;
      const shown = shownDefault(firstUse.get(row.name)?.fallback);
      if (shown === "none") expect(row.requirement, row.name).toMatch(/^none\b/);
      else expect(row.requirement, row.name).toContain(`\`${shown}\``);
    }
  });

  it("puts every required parameter in the deploy command at the top of the page", () => {
    const command = deployCommand();
    expect(command).toMatch(/^npx serverless deploy --stage \S+/);
    const required = rows.filter((r) => r.requirement.startsWith("required")).map((r) => r.name);
    expect(required.length).toBeGreaterThan(0);
    for (const name of required) expect(command, name).toMatch(new RegExp(`--param '?"?${name}=`));
    // One of the two alarm destinations, as packaging asks.
    expect(command).toMatch(/--param '?"?(alarmEmail|alarmTopicArn)=/);
  });
});

describe("the parameter reader", () => {
  it("reads nested variables and fallbacks with commas inside them", () => {
    expect(parameterUses("a: ${strToBool(${param:x, 'false'})}\nb: ${param:y, '${self:a}/${sls:b}'}\nc: ${param:z}")).toEqual([
      { name: "x", fallback: "'false'" },
      { name: "y", fallback: "'${self:a}/${sls:b}'" },
      { name: "z" },
    ]);
  });
});
