/** What `npm start` prints once the service answers: where everything is, and who to log in as. */
export interface BannerInfo {
  /** The project's name (package.json `webda.project`): "Sample <project> seeded". */
  project: string;
  urls: [label: string, url: string][];
  /** The demo users and their passwords; empty when started with --empty. */
  users: { email: string; password: string }[];
  /** Why the demo users cannot log in yet, if they cannot. */
  loginNote?: string;
  outbox: string;
  seeded: "seeded" | "kept" | "empty";
}

export function banner(info: BannerInfo): string {
  const width = Math.max(...info.urls.map(([label]) => label.length));
  const lines = ["", "Ready.", ""];
  for (const [label, url] of info.urls) lines.push(`  ${label.padEnd(width)}  ${url}`);
  lines.push("");
  if (info.seeded === "empty") {
    lines.push(`  Started empty (--empty): \`npm run seed\` adds the sample ${info.project} and its demo users.`);
  } else {
    lines.push(
      info.seeded === "seeded" ? `  Sample ${info.project} seeded. Demo users (email / password):` : "  Existing data kept. Demo users (email / password):",
    );
    for (const user of info.users) lines.push(`    ${user.email} / ${user.password}`);
    if (info.loginNote) lines.push(`    (${info.loginNote})`);
  }
  lines.push("", `  Mail outbox: ${info.outbox} (one JSON file per mail)`, "  Ctrl-C stops everything.", "");
  return lines.join("\n");
}
