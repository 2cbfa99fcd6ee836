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
    const words = argv.filter((a) => !a.startsWith("-")).slice(0, 2).join(" ") || first;
    io.err(`${program.program}: unknown command '${words}' (${program.program} --help lists the commands)`);
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
    io.err(`${program.program} ${command.name}: unknown ${rest[0]?.startsWith("-") ? "option" : "argument"} '${rest[0]}' (${program.program} ${command.name} --help)`);
    return 2;
  }
  return command.run(rest);
}
