import { createServer } from "node:net";
import { LOCAL_HOST } from "../http/offline.ts";

// Declared where the functions read it (lib/http sits below lib/local); re-exported for the local tools.
export { LOCAL_HOST };

function listenOnce(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** A port nobody listens on right now (another process may still take it before we do). */
export function freePort(host = LOCAL_HOST): Promise<number> {
  return listenOnce(0, host);
}

export async function isPortFree(port: number, host = LOCAL_HOST): Promise<boolean> {
  try {
    await listenOnce(port, host);
    return true;
  } catch {
    return false;
  }
}

/** Fails with one message naming every busy port, so the user can fix them all at once. */
export async function assertPortsFree(ports: readonly number[], host = LOCAL_HOST): Promise<void> {
  const busy: number[] = [];
  for (const port of ports) {
    if (!(await isPortFree(port, host))) busy.push(port);
  }
  if (busy.length > 0) {
    throw new Error(
      `port${busy.length > 1 ? "s" : ""} ${busy.join(", ")} on ${host} already in use ` + "(another `npm start` still running?); stop that process first",
    );
  }
}
