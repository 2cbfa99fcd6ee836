/** One command of a CLI: its words (`auth migrate`), a line for the overview and its own help. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Whether the command reads options of its own; one that does not refuses any. */
  takesOptions?: boolean;
  run(argv: string[]): Promise<number>;
}

export interface Program {
  program: string;
  version: string;
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const stdio: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

const wantsHelp = (argv: string[]): boolean => argv.includes("--help") || argv.includes("-h");

/** What node's parseArgs says of a wrong flag, shortened to the problem alone. */
function problemOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const named = /'([^']+)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && named) return `unknown option '${named}'`;
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && named) return `unknown argument '${named}'`;
  // parseArgs adds advice after the first sentence ("To specify a positional argument..."): the hint replaces it.
  const first = message.split("\n")[0] ?? message;
  return code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" ? (first.split(/(?<=\.) /)[0] ?? first).replace(/\.$/, "") : first;
}

/**
 * The one form of every wrong flag, argument or missing option: one line naming the command, the
 * problem and where its help is. Callers exit 2.
 */
export function usageError(command: string, error: unknown, program = "webda"): string {
  return `${program} ${command}: ${problemOf(error)} (${program} ${command} --help)`;
}

/** The commands under a group's words (`auth` -> `auth migrate`). */
function groupOf(commands: Command[], words: string[]): Command[] {
  return commands.filter((c) => {
    const names = c.name.split(" ");
    return names.length > words.length && words.every((word, i) => names[i] === word);
  });
}

function groupUsage(group: string, members: Command[], { program }: Program): string {
  const names = members.map((c) => c.name.slice(group.length + 1));
  const width = Math.max(...names.map((n) => n.length));
  const lines = members.map((c, i) => `  ${(names[i] ?? "").padEnd(width)}  ${c.summary}`);
  return `usage: ${program} ${group} <command> [options]\n\n${lines.join("\n")}\n\n${program} ${group} <command> --help shows a command's options.`;
}

export function overview(commands: Command[], { program }: Program): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: ${program} <command> [options]\n\n${lines.join("\n")}\n\n${program} <command> --help shows a command's options; ${program} --version its version.`;
}

/**
 * Dispatches argv to a command, the way users expect a CLI to behave: help (-h, --help, `help`)
 * goes to stdout with exit 0 and never runs the command; an unknown command is named in one line
 * on stderr with exit 2.
 */
export async function runCommand(commands: Command[], argv: string[], program: Program, io: Output = stdio): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    io.out(overview(commands, program));
    return 0;
  }
  if (first === "--version" || first === "-v") {
    io.out(program.version);
    return 0;
  }
  // The longest command whose words start argv ("auth migrate" before a future "auth").
  const command = [...commands]
    .sort((a, b) => b.name.split(" ").length - a.name.split(" ").length)
    .find((c) => c.name.split(" ").every((word, i) => argv[i] === word));
  if (!command) {
    // A group's words alone (`webda auth`, `webda db --help`): its commands, as the overview lists all.
    const words = argv.filter((a) => !a.startsWith("-"));
    for (let n = words.length; n >= 1; n -= 1) {
      const group = words.slice(0, n);
      const members = groupOf(commands, group);
      if (members.length === 0 || !group.every((word, i) => argv[i] === word)) continue;
      const name = group.join(" ");
      const rest = argv.slice(n);
      const unknown = rest.find((a) => a !== "--help" && a !== "-h");
      if (unknown === undefined) {
        io.out(groupUsage(name, members, program));
        return 0;
      }
      const what = unknown.startsWith("-") ? "option" : "command";
      io.err(`${program.program} ${name}: unknown ${what} '${unknown}' (${program.program} ${name} --help lists its commands)`);
      return 2;
    }
    const named = words.slice(0, 2).join(" ") || first;
    io.err(`${program.program}: unknown command '${named}' (${program.program} --help lists the commands)`);
    return 2;
  }
  const rest = argv.slice(command.name.split(" ").length);
  if (wantsHelp(rest)) {
    io.out(command.usage);
    return 0;
  }
  if (rest.includes("--version")) {
    io.out(program.version);
    return 0;
  }
  if (!command.takesOptions && rest.length > 0) {
    io.err(usageError(command.name, `unknown ${rest[0]?.startsWith("-") ? "option" : "argument"} '${rest[0]}'`, program.program));
    return 2;
  }
  return command.run(rest);
}
