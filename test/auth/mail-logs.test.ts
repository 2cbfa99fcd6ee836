import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SesTransport } from "../../lib/auth/mail/ses.ts";
import { loggedRecipient } from "../../lib/auth/mail/recipient.ts";
import { withEnvironment } from "../support/offline-env.ts";
import { client, emailApp, newEmail, PASSWORD, profile } from "./client.ts";

// The mail lines are info lines: this file's invocations log them (the suite runs at warn), each
// reading the level as it begins (lib/core/log.ts).
withEnvironment({ LOG_LEVEL: "info" });

/** Every line written to stdout and stderr while `run` runs. */
async function linesOf(run: () => Promise<unknown>): Promise<string[]> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture);
  try {
    await run().catch((error: unknown) => written.push(String(error instanceof Error ? `${error.message}\n${error.stack}` : error)));
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return written
    .join("")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

describe("no recipient address in mail log lines", () => {
  afterEach(() => vi.restoreAllMocks());

  it("the outbox (npm start) logs a sent mail's recipient as a digest, with its link", async () => {
    const t = emailApp({ verification: "none", redirects: { failure: "https://x.test/f", recover: "https://x.test/r" } });
    const email = newEmail();
    expect((await client(t).request("POST", "/auth/email/register", { body: { email, password: PASSWORD, user: profile() } })).status).toBe(200);
    const lines = await linesOf(() => client(t).request("POST", "/auth/password/recovery", { body: { email } }));
    expect(t.mails(email)).toHaveLength(1);
    const mailLines = lines.filter((l) => l.includes("outbox"));
    expect(mailLines).toHaveLength(1);
    expect(mailLines[0]).toContain(loggedRecipient(email));
    expect(mailLines[0]).toContain("https://api.example.com/");
    for (const line of lines) expect(line).not.toContain(email);
  });

  describe("SES (a deployed stage), against a local endpoint that answers as SES does", () => {
    let server: Server;
    let endpoint = "";
    beforeAll(async () => {
      server = createServer((request, response) => {
        let body = "";
        request.on("data", (c: Buffer) => (body += c.toString()));
        request.on("end", () => {
          const to = (JSON.parse(body) as { Destination: { ToAddresses: string[] } }).Destination.ToAddresses[0] as string;
          if (to.startsWith("refused")) {
            response.writeHead(400, { "content-type": "application/json", "x-amzn-errortype": "MessageRejected" });
            response.end(JSON.stringify({ message: `Email address is not verified. The following identities failed the check: ${to}` }));
            return;
          }
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ MessageId: "m-1" }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const transport = () =>
      new SesTransport("no-reply@example.com", {
        endpoint,
        region: "eu-west-1",
        credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test" },
        maxAttempts: 1,
      });
    const mail = (to: string) => ({ to, subject: "Recover your password", text: "https://api.example.com/x", html: "<p>x</p>" });

    it("logs a sent mail's recipient as a digest", async () => {
      const to = newEmail();
      const lines = await linesOf(() => transport().send(mail(to)));
      const sent = lines.filter((l) => l.includes("mail sent"));
      expect(sent).toHaveLength(1);
      expect(sent[0]).toContain(loggedRecipient(to));
      for (const line of lines) expect(line).not.toContain(to);
    });

    it("a refusal that names the recipient reaches the caller (and its error line) without it", async () => {
      const to = `refused-${newEmail()}`;
      const error = await transport()
        .send(mail(to))
        .then(
          () => undefined,
          (e: unknown) => e as Error,
        );
      expect(error?.name).toBe("MessageRejected");
      expect(error?.message).toContain(loggedRecipient(to));
      expect(`${error?.message}${error?.stack}`).not.toContain(to);
    });
  });
});
