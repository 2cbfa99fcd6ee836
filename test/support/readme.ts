import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const README = fileURLToPath(new URL("../../README.md", import.meta.url));

export interface Block {
  /** The fence's language: `sh` blocks are commands, `js` blocks files to save, others output. */
  lang: string;
  code: string;
}

/** The text of a `## <title>` section of README.md, up to the next `## ` heading. */
export function readmeSection(title: string, text = readFileSync(README, "utf8")): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no '## ${title}' section`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of a piece of markdown, in order. */
export function codeBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? "", code: m[2] ?? "" }));
}

/** The markdown outside code blocks (the prose, where URLs to open are named). */
export function prose(markdown: string): string {
  return markdown.replace(/^```\w*\n[\s\S]*?^```$/gm, "");
}

/** A `js` or `ts` block's file (relative path): its first line is `// <path>: <what it is>`. */
export function fileNameOf(block: Block): string {
  const name = /^\/\/ ([\w./-]+\.(?:m?js|ts)):/.exec(block.code)?.[1];
  if (!name || name.split("/").includes("..")) throw new Error(`a code block to save must start with '// <file>: <what it is>':\n${block.code}`);
  return name;
}
