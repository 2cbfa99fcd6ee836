import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { Application, type ApplicationDefinition } from "../../lib/core/application.ts";
import { AuthenticationService, EmailPasswordProvider } from "../../lib/auth/index.ts";
import { authDispatcher } from "../../lib/auth/routes/table.ts";
import { httpHandler } from "../../lib/http/handler.ts";
import { restHandler } from "../../lib/rest/handler.ts";
import { dynamoStore } from "../../lib/store/select.ts";
import { definition } from "../fixtures/blog/index.ts";
import { httpEvent, lambdaContext } from "../support/http-events.ts";
import { inProcess } from "../support/parts.ts";

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  cookies: string[];
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/** The blog with an email provider configured for the test, its auth routes and REST handlers in process. */
export function emailApp(
  email: Record<string, unknown> = {},
  services: ApplicationDefinition["services"] = {},
  overrides: Partial<ApplicationDefinition> = {},
) {
  const outbox = mkdtempSync(join(tmpdir(), "outbox-"));
  const base = definition.services.email as { type: string } & Record<string, unknown>;
  const app = new Application(
    {
      ...definition,
      services: {
        ...definition.services,
        mailer: { type: "Framework/Mailer", transport: "outbox", outbox },
        // Links in mails come from configuration only: the API's public URL, as a deployed stage sets it.
        // Every in-process app counts on one service-wide mail budget row per minute: tests leave it
        // out of reach unless they set `throttle.mailsPerMinute` themselves (test/auth/mail-budget.test.ts);
        // every in-process request comes from one source address, whose share is out of reach alike.
        email: {
          ...base,
          password: { cost: { ln: 10 } },
          publicUrl: "https://api.example.com",
          ...email,
          throttle: { mailsPerMinute: 1_000_000, mailsPerSourcePerMinute: 1_000_000, ...((email.throttle ?? base.throttle) as object) },
        },
        ...services,
      },
      ...overrides,
    },
    inProcess,
  ).useStore(dynamoStore());
  const auth = app.services().find((e) => e.service instanceof AuthenticationService)?.service as AuthenticationService;
  const provider = app.service("email")?.service as EmailPasswordProvider;
  const authHandler = httpHandler("auth", authDispatcher(app));
  const rest = restHandler(app);
  const allMails = (): OutboxMail[] =>
    readdirSync(outbox)
      .sort()
      .map((f) => JSON.parse(readFileSync(join(outbox, f), "utf8")) as OutboxMail);
  const mails = (to: string): OutboxMail[] => allMails().filter((m) => m.to === to);
  return { app, auth, provider, authHandler, rest, outbox, mails, allMails };
}

/** A browser-like client: a cookie jar, the API's own Origin on writes unless told otherwise. */
export function client(handlers: { authHandler: ReturnType<typeof httpHandler>; rest: ReturnType<typeof restHandler> }) {
  const jar = new Map<string, string>();
  return {
    jar,
    /** `sourceIp`: the caller's address as API Gateway reports it (127.0.0.1 otherwise). */
    async request(
      method: string,
      path: string,
      options: { body?: unknown; headers?: Record<string, string>; cookies?: boolean; sourceIp?: string } = {},
    ): Promise<Reply> {
      const cookies = options.cookies === false ? [] : [...jar].map(([k, v]) => `${k}=${v}`);
      const event = httpEvent(method, path, {
        body: options.body,
        headers: { host: "api.example.com", origin: "https://api.example.com", ...options.headers },
      });
      if (options.sourceIp) event.requestContext.http.sourceIp = options.sourceIp;
      if (cookies.length > 0) event.cookies = cookies;
      const handler = path.startsWith("/auth") || path.startsWith("/.well-known") ? handlers.authHandler : handlers.rest;
      // A generous deadline: middy answers early near the Lambda's end, and a loaded CI box is slow.
      const result = (await handler(event, { ...lambdaContext(), getRemainingTimeInMillis: () => 120_000 })) as {
        statusCode: number;
        headers?: Record<string, string>;
        body?: string;
        cookies?: string[];
      };
      for (const cookie of result.cookies ?? []) {
        const [pair] = cookie.split(";");
        const [name, value] = (pair as string).split("=") as [string, string];
        if (/Max-Age=0/.test(cookie)) jar.delete(name);
        else jar.set(name, value);
      }
      return {
        status: result.statusCode,
        headers: result.headers ?? {},
        body: result.body ? (JSON.parse(result.body) as unknown) : undefined,
        cookies: result.cookies ?? [],
      };
    },
  };
}

export const newEmail = (): string => `user-${randomUUID().slice(0, 8)}@example.com`;
export const profile = (name = "alice") => ({ username: name, name: `${name} Example` });
export const PASSWORD = "correct horse battery";
export const tokenOf = (link: string): string => new URL(link).searchParams.get("token") as string;
export const linkIn = (mail: OutboxMail | undefined): string => /https?:\/\/\S+/.exec(mail?.text ?? "")?.[0] as string;
