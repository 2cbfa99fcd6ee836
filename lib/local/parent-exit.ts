/**
 * Children we spawn (Java, serverless) do not die with us on their own: a parent that exits or
 * is interrupted would leave them holding ports. Each registered killer runs once, on the first
 * of: normal exit, SIGINT, SIGTERM, SIGHUP. SIGKILL of the parent cannot be caught.
 */
type Killer = (signal: NodeJS.Signals) => void;

const killers = new Set<Killer>();
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let installed = false;

function runKillers(signal: NodeJS.Signals): void {
  for (const kill of [...killers]) {
    killers.delete(kill);
    try {
      kill(signal);
    } catch {
      // The child may already be gone; the others must still be killed.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runKillers("SIGTERM");
  // Our listener suppressed Node's default "die on signal"; restore it unless the program
  // handles the signal itself (then it decides when to exit).
  if (process.listenerCount(signal) === 1) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function onExit(): void {
  // Only synchronous work runs here, so there is no waiting for a graceful stop.
  runKillers("SIGKILL");
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("exit", onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off("exit", onExit);
}

/** Registers `kill` to run when this process goes away; the returned function unregisters it. */
export function killWithParent(kill: Killer): () => void {
  install();
  killers.add(kill);
  return () => {
    killers.delete(kill);
    if (killers.size === 0) uninstall();
  };
}
