import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { documentedDeployCommand, documentedParameters, parameterUses, withoutIdp, type ParameterUse } from "../support/deploy-parameters.ts";

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
const deployCommand = (): string => documentedDeployCommand(page);

/** A section of the page, up to the next heading of its level. */
function section(heading: string): string {
  const start = page.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/deploying.md has no '${heading}'`);
  const next = page.indexOf("\n## ", start + heading.length + 2);
  return page.slice(start, next === -1 ? undefined : next);
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
  it("runs as written without AWS: no ${...} lookup for serverless to resolve, no placeholder, each $(...) a file the first deploy writes", () => {
    const command = deployCommand();
    expect(command).not.toMatch(/\$\{/);
    const substitutions = [...command.matchAll(/\$\(([^)]*)\)/g)].map((m) => m[1] ?? "");
    expect(substitutions).toEqual(["cat auth-public-keys.json"]);
    expect(section("## A first deploy from nothing")).toContain("npx webda keygen --public < /dev/shm/signing.jwk > auth-public-keys.json");
    // A shell would read `<...>` as a redirection: the command names real-looking values only.
    expect(command.replace(/\$\([^)]*\)/g, "")).not.toMatch(/[<>]/);
  });

  it("asks an application without an Idp for none of the Idp's parameters, and a first deploy for no publicUrl", () => {
    const idp = rows.filter((r) => r.name.startsWith("idp") && r.requirement.startsWith("required"));
    expect(idp.map((r) => r.name).sort()).toEqual(["idpClientId", "idpClientSecretParameter", "idpIssuer"]);
    for (const row of idp) expect(row.requirement, row.name).toMatch(/^required with an Idp/);
    const command = withoutIdp(deployCommand());
    expect(command).not.toMatch(/idp/i);
    expect(command).toMatch(/--param alarmEmail=/);
    expect(deployCommand()).not.toMatch(/publicUrl/);
    expect(rows.find((r) => r.name === "publicUrl")?.requirement).toMatch(/^`self:custom\.apiUrl`/);
    // serverless.yml's default for publicUrl is the API's own URL, from the HttpApi CloudFormation creates.
    expect(yaml).toMatch(/PUBLIC_URL: \$\{param:publicUrl, self:custom\.apiUrl\}/);
    expect(yaml).toMatch(/apiUrl:\n\s+Fn::Join: \["", \["https:\/\/", \{ Ref: HttpApi \}, "\.execute-api\."/);
  });

  it("takes a new account through SES: the sender's identity and the sandbox", () => {
    const first = section("## A first deploy from nothing");
    expect(first).toContain("aws sesv2 create-email-identity");
    expect(first).toMatch(/sandbox/);
    expect(first).toContain("aws sesv2 put-account-details --production-access-enabled");
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
