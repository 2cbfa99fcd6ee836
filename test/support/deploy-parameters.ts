/**
 * The deploy parameters serverless.yml reads (`${param:name, fallback}`) and the table of them in
 * docs/deploying.md, read the same way by the test that keeps the two equal.
 */

export interface ParameterUse {
  name: string;
  /** The fallback's text as written (`null`, `'info'`, `${self:...}`), or undefined when there is none. */
  fallback?: string;
}

/** Every `${param:...}` of a serverless.yml text, nested variables included. */
export function parameterUses(yaml: string): ParameterUse[] {
  const uses: ParameterUse[] = [];
  const opener = "${param:";
  for (let at = yaml.indexOf(opener); at !== -1; at = yaml.indexOf(opener, at + 1)) {
    const body = enclosed(yaml, at + 1);
    const inner = body.slice("param:".length);
    const comma = topLevelComma(inner);
    const name = (comma === -1 ? inner : inner.slice(0, comma)).trim();
    uses.push({ name, ...(comma === -1 ? {} : { fallback: inner.slice(comma + 1).trim() }) });
  }
  return uses;
}

/** The text between the `{` at `open` and its matching `}`. */
function enclosed(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unclosed variable at ${open}`);
}

function topLevelComma(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}") depth--;
    else if (text[i] === "," && depth === 0) return i;
  }
  return -1;
}

export interface DocumentedParameter {
  name: string;
  /** The second column: `required`, `required for deployed stages`, or the default. */
  requirement: string;
  readBy: string;
}

/** The rows of the table under `heading` in a Markdown page whose first column is a `name`. */
export function documentedParameters(markdown: string, heading: string): DocumentedParameter[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`no section '${heading}'`);
  const next = markdown.indexOf("\n## ", start + heading.length + 2);
  const section = markdown.slice(start, next === -1 ? undefined : next);
  const rows: DocumentedParameter[] = [];
  for (const line of section.split("\n")) {
    const match = /^\|\s*`([A-Za-z0-9]+)`\s*\|([^|]*)\|(.*)\|\s*$/.exec(line);
    if (match) rows.push({ name: match[1]!, requirement: match[2]!.trim(), readBy: match[3]!.trim() });
  }
  return rows;
}

/** The deploy command at the top of docs/deploying.md, as a newcomer pastes it (continuation lines joined). */
export function documentedDeployCommand(page: string): string {
  const block = /^# Deploying\n\n((?: {4}.*\n)+)/m.exec(page)?.[1];
  if (!block) throw new Error("docs/deploying.md opens without its deploy command");
  return block
    .split("\n")
    .map((line) => line.slice(4))
    .join("\n")
    .replace(/\\\n\s*/g, " ")
    .trim();
}

/** The command for an application without an Idp: the documented one less its `idp` parameters. */
export function withoutIdp(command: string): string {
  return command.replace(/ --param idp[A-Za-z]+=\S+/g, "");
}
