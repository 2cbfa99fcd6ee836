import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { acquireOfflineLock } from "../../lib/local/offline-lock.ts";
import { launchOffline, READY_TIMEOUT_MS, type Offline, type OfflineOptions } from "./offline.ts";

/**
 * How the shared service starts: empty tables (each file writes its own records), the test-user
 * hook on, cheap password hashes (a Lambda runtime refuses them; the files register many users).
 */
export const SHARED_OFFLINE_OPTIONS: OfflineOptions = { args: ["--empty"], env: { PASSWORD_COST_LN: "12" } };

// A file that asks for the service waits at most this long for files with their own to finish.
const WAIT_MS = 15 * 60_000;

export interface SharedOfflineLease {
  url: string;
  pid: number;
  output: string;
}

/**
 * The run's one shared `npm start`, governed from vitest's main process as a readers-writer
 * lock: files lease it (many at once), and a file that needs the fixed ports for a service of its
 * own asks it to yield (it stops once no lease is left, and starts again on the next lease after
 * that file resumes it). Answers over loopback HTTP: the workers are other processes.
 */
export class SharedOfflineControl {
  private service: Offline | undefined;
  private starting: Promise<Offline> | undefined;
  private leases = 0;
  private exclusive = 0;
  private server: Server | undefined;

  /** Starts the control endpoint and, in the background, the service; resolves to the endpoint's URL. */
  async listen(): Promise<string> {
    const server = createServer((request, response) => {
      const action = request.url?.slice(1) ?? "";
      this.answer(action).then(
        (body) => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify(body ?? null));
        },
        (error: unknown) => {
          response.writeHead(500, { "content-type": "text/plain" });
          response.end(error instanceof Error ? error.message : String(error));
        },
      );
    });
    // A lease or a yield may wait minutes for other files.
    server.requestTimeout = 0;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    // Started now so that the files' first lease finds it (nearly) ready; a failure here is
    // reported to the first file that asks, which starts it again.
    this.start().catch(() => undefined);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.starting?.catch(() => undefined);
    await this.service?.stop();
    this.service = undefined;
  }

  private async answer(action: string): Promise<SharedOfflineLease | undefined> {
    switch (action) {
      case "lease":
        await until(() => this.exclusive === 0, "files with a service of their own to finish");
        this.leases++;
        try {
          const service = await this.start();
          return { url: service.url, pid: service.pid, output: service.output() };
        } catch (error) {
          this.leases--;
          throw error;
        }
      case "release":
        this.leases = Math.max(0, this.leases - 1);
        return undefined;
      case "yield":
        this.exclusive++;
        try {
          await until(() => this.leases === 0, "the files using the shared npm start to finish");
          await this.starting?.catch(() => undefined);
          await this.service?.stop();
          this.service = undefined;
        } catch (error) {
          this.exclusive--;
          throw error;
        }
        return undefined;
      case "resume":
        this.exclusive = Math.max(0, this.exclusive - 1);
        return undefined;
      default:
        throw new Error(`unknown action ${action}`);
    }
  }

  private start(): Promise<Offline> {
    if (this.service) return Promise.resolve(this.service);
    this.starting ??= (async () => {
      try {
        const release = await acquireOfflineLock(READY_TIMEOUT_MS * 2);
        this.service = await launchOffline(SHARED_OFFLINE_OPTIONS, release);
        return this.service;
      } finally {
        this.starting = undefined;
      }
    })();
    return this.starting;
  }
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`shared npm start: timed out waiting for ${what}`);
    await sleep(100);
  }
}
