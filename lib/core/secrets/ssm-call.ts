import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { signPost, type AwsCredentials } from "./sigv4.ts";

/**
 * A cold start must not hang on the secret store: a connection that does not open within a
 * second, or an answer that takes over two, is dropped and retried on a new connection; three
 * attempts stay well inside the init phase's 10 s.
 */
export const SSM_TIMEOUTS = { connectionMs: 1000, requestMs: 2000, attempts: 3 };

/**
 * The largest answer read: GetParameters answers at most 10 parameters of at most 8 KB each
 * (an advanced parameter's limit) with their metadata, well under this. A longer one (a proxy's
 * page, a broken or hostile endpoint) is dropped as soon as it passes the limit, never read whole.
 */
export const SSM_MAX_ANSWER_BYTES = 256 * 1024;

/**
 * An error the secret store answered (its `__type`, never its message, which may repeat the
 * request or carry a proxy's page), or a transport failure (`name` only): what an operator reads
 * when the function does not start, so nothing of the answer's body is ever copied into it.
 */
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

/** An AWS region's name (`us-east-1`, `us-gov-west-1`, `cn-north-1`): nothing else becomes part of a host name. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

export function isRegion(region: string): boolean {
  return REGION.test(region);
}

/** SSM's endpoint in `region`: its partition's domain (China's and the isolated regions' differ). */
export function ssmEndpoint(region: string): URL {
  if (!isRegion(region)) throw new SsmCallError("InvalidRegion", "the region is not an AWS region name", false);
  const domain = region.startsWith("cn-")
    ? "amazonaws.com.cn"
    : region.startsWith("us-isob-")
      ? "sc2s.sgov.gov"
      : region.startsWith("us-iso-")
        ? "c2s.ic.gov"
        : "amazonaws.com";
  return new URL(`https://ssm.${region}.${domain}/`);
}

function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "http:" ? httpRequest : httpsRequest;
    const req = send(url, { method: "POST", headers, agent: false });
    let settled = false;
    // Settles once, whatever comes after (a destroyed request's own error events, a late timer).
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(connecting);
      clearTimeout(answering);
      outcome();
    };
    const fail = (error: SsmCallError) => {
      finish(() => reject(error));
      req.destroy();
    };
    const connecting = setTimeout(
      () => fail(new SsmCallError("TimeoutError", `no connection within ${SSM_TIMEOUTS.connectionMs} ms`, true)),
      SSM_TIMEOUTS.connectionMs,
    );
    const answering = setTimeout(() => fail(new SsmCallError("TimeoutError", `no answer within ${SSM_TIMEOUTS.requestMs} ms`, true)), SSM_TIMEOUTS.requestMs);
    const tooLarge = () => new SsmCallError("AnswerTooLarge", `an answer of more than ${SSM_MAX_ANSWER_BYTES} bytes`, false);
    req.on("socket", (socket) => (socket.connecting ? socket.once("connect", () => clearTimeout(connecting)) : clearTimeout(connecting)));
    req.on("error", (error) => fail(new SsmCallError((error as NodeJS.ErrnoException).code ?? error.name, error.message, true)));
    req.on("response", (res: IncomingMessage) => {
      // A declared length over the limit is refused before a byte of it is read.
      if (Number(res.headers["content-length"] ?? 0) > SSM_MAX_ANSWER_BYTES) {
        fail(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > SSM_MAX_ANSWER_BYTES) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on("end", () => finish(() => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") })));
      res.on("error", (error) => fail(new SsmCallError(error.name, error.message, true)));
    });
    req.end(body);
  });
}

/**
 * The error of a refused call: the JSON protocol's `__type` (it may carry a namespace,
 * `com.amazon...#Name`) when it is a plain identifier, else the status. SSM's message is left out:
 * it is not ours to repeat, and a proxy or a broken endpoint can put anything in a body.
 */
function errorOf(status: number, text: string): SsmCallError {
  let type: unknown;
  try {
    type = (JSON.parse(text) as { __type?: unknown } | null)?.__type;
  } catch {
    // A proxy's HTML page, say: the status is all there is.
  }
  const name = typeof type === "string" ? type.split("#").pop() : undefined;
  const known = name !== undefined && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(name) ? name : undefined;
  return new SsmCallError(known ?? `HTTP ${status}`, `HTTP ${status}`, status >= 500 || /Throttl|TooManyRequests/.test(known ?? ""));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One action of SSM's JSON protocol (`AmazonSSM.<action>`), signed, with timeouts and retries.
 * The answer is parsed JSON of no known shape (`unknown`): the caller checks it.
 */
export async function ssmCall(action: string, input: unknown, options: SsmCallOptions): Promise<unknown> {
  // Checked before anything is built from it: the host name, the signature's scope.
  if (!isRegion(options.region)) throw new SsmCallError("InvalidRegion", "the region is not an AWS region name", false);
  const url = options.endpoint === undefined ? ssmEndpoint(options.region) : new URL(options.endpoint);
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
      if (status !== 200) throw errorOf(status, text);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new SsmCallError("MalformedAnswer", "the answer is not JSON", false);
      }
    } catch (error) {
      const retryable = error instanceof SsmCallError && error.retryable;
      if (!retryable || attempt >= SSM_TIMEOUTS.attempts) throw error;
      // Full jitter over 100 ms, 200 ms: as the SDK's standard retry strategy backs off.
      await pause(Math.random() * 100 * 2 ** (attempt - 1));
    }
  }
}
