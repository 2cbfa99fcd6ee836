import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { signPost, type AwsCredentials } from "./sigv4.ts";

/**
 * A cold start must not hang on the secret store: a connection that does not open within a
 * second, or an answer that takes over two, is dropped and retried on a new connection; three
 * attempts stay well inside the init phase's 10 s.
 */
export const SSM_TIMEOUTS = { connectionMs: 1000, requestMs: 2000, attempts: 3 };

/** An error the secret store answered (its `__type`), or a transport failure (`name` only). */
export class SsmCallError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface SsmCallOptions {
  region: string;
  credentials: AwsCredentials;
  /** The SDK's own override (`AWS_ENDPOINT_URL_SSM`), else the region's endpoint. */
  endpoint?: string;
}

function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, { method: "POST", headers, agent: false });
    const fail = (name: string, message: string) => req.destroy(new SsmCallError(name, message, true));
    const connecting = setTimeout(() => fail("TimeoutError", `no connection within ${SSM_TIMEOUTS.connectionMs} ms`), SSM_TIMEOUTS.connectionMs);
    const answering = setTimeout(() => fail("TimeoutError", `no answer within ${SSM_TIMEOUTS.requestMs} ms`), SSM_TIMEOUTS.requestMs);
    const done = () => {
      clearTimeout(connecting);
      clearTimeout(answering);
    };
    req.on("socket", (socket) => (socket.connecting ? socket.once("connect", () => clearTimeout(connecting)) : clearTimeout(connecting)));
    req.on("error", (error) => {
      done();
      reject(error instanceof SsmCallError ? error : new SsmCallError((error as NodeJS.ErrnoException).code ?? error.name, error.message, true));
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        done();
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", (error) => {
        done();
        reject(new SsmCallError(error.name, error.message, true));
      });
    });
    req.end(body);
  });
}

/** The error type of a JSON-protocol answer: `__type` may carry a namespace (`com.amazon...#Name`). */
function errorOf(status: number, text: string): SsmCallError {
  let parsed: { __type?: unknown; message?: unknown; Message?: unknown } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // A proxy's HTML page, say: the status is all there is.
  }
  const type = typeof parsed.__type === "string" ? (parsed.__type.split("#").pop() as string) : `HTTP ${status}`;
  const message = typeof parsed.message === "string" ? parsed.message : typeof parsed.Message === "string" ? parsed.Message : "";
  return new SsmCallError(type, message, status >= 500 || /Throttl|TooManyRequests/.test(type));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One action of SSM's JSON protocol (`AmazonSSM.<action>`), signed, with timeouts and retries. */
export async function ssmCall<T>(action: string, input: unknown, options: SsmCallOptions): Promise<T> {
  const url = new URL(options.endpoint ?? `https://ssm.${options.region}.amazonaws.com/`);
  const body = JSON.stringify(input);
  for (let attempt = 1; ; attempt++) {
    const headers = signPost(url, { "content-type": "application/x-amz-json-1.1", "x-amz-target": `AmazonSSM.${action}` }, body, {
      credentials: options.credentials,
      region: options.region,
      service: "ssm",
      now: new Date(),
    });
    try {
      const { status, text } = await post(url, headers, body);
      if (status === 200) return JSON.parse(text) as T;
      throw errorOf(status, text);
    } catch (error) {
      const retryable = error instanceof SsmCallError && error.retryable;
      if (!retryable || attempt >= SSM_TIMEOUTS.attempts) throw error;
      // Full jitter over 100 ms, 200 ms: as the SDK's standard retry strategy backs off.
      await pause(Math.random() * 100 * 2 ** (attempt - 1));
    }
  }
}
