import type { IncomingMessage } from "node:http";
import { HttpRequest } from "@smithy/core/protocols";
import { Hash } from "@smithy/core/serde";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";

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

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
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

/** SHA-256 on node:crypto, as the SDK's Node runtime gives its signer (`Hash.bind(null, "sha256")`). */
class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super("sha256", secret);
  }
}

/**
 * The request of one action at `url`. As the SDK joins an endpoint's path with the JSON
 * protocol's `/` (`https://proxy/ssm` is asked at `/ssm/`); its query is sent, and so signed.
 */
function requestOf(url: URL, action: string, body: string): HttpRequest {
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
  return new HttpRequest({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === "" ? {} : { port: Number(url.port) }),
    path: url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`,
    query,
    headers: {
      host: url.host,
      "content-type": "application/x-amz-json-1.1",
      "content-length": String(Buffer.byteLength(body)),
      "x-amz-target": `AmazonSSM.${action}`,
    },
    body,
  });
}

/**
 * The answer's body, read up to the limit: a declared length over it is refused before a byte is
 * read, a longer body dropped (its connection closed) as soon as it passes it.
 */
function readAnswer(body: IncomingMessage, signal: AbortSignal): Promise<string> {
  const tooLarge = () => new SsmCallError("AnswerTooLarge", `an answer of more than ${SSM_MAX_ANSWER_BYTES} bytes`, false);
  return new Promise((resolve, reject) => {
    // Destroying the body closes its connection: nothing more of it is read.
    const fail = (error: Error) => {
      signal.removeEventListener("abort", stop);
      body.destroy();
      reject(error);
    };
    // The attempt's deadline covers the body too: a stalled one is cut, as a stalled connection is.
    const stop = () => fail(new Error("aborted"));
    if (Number(body.headers["content-length"] ?? 0) > SSM_MAX_ANSWER_BYTES) return fail(tooLarge());
    signal.addEventListener("abort", stop, { once: true });
    const chunks: Buffer[] = [];
    let size = 0;
    body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > SSM_MAX_ANSWER_BYTES) fail(tooLarge());
      else chunks.push(chunk);
    });
    body.on("error", fail);
    body.on("end", () => {
      signal.removeEventListener("abort", stop);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

/**
 * A transport failure as an operator reads it: ours when the attempt ran out of time, else the
 * system's code (`ECONNREFUSED`) and message, which name an address and never a body.
 */
function transportError(error: unknown, signal: AbortSignal): SsmCallError {
  if (error instanceof SsmCallError) return error;
  if (signal.aborted) return new SsmCallError("TimeoutError", `no answer within ${SSM_TIMEOUTS.requestMs} ms`, true);
  const { name, code, message } = error as NodeJS.ErrnoException;
  // The handler's own connection timeout is the one TimeoutError without a system code.
  if (name === "TimeoutError" && code === undefined) return new SsmCallError("TimeoutError", `no connection within ${SSM_TIMEOUTS.connectionMs} ms`, true);
  return new SsmCallError(code ?? name, message, true);
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

/** One signed attempt: its status and body, within the attempt's deadline. */
async function attempt(handler: NodeHttpHandler, signer: SignatureV4, request: HttpRequest): Promise<{ status: number; text: string }> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), SSM_TIMEOUTS.requestMs);
  try {
    // Signed afresh each attempt: its date is part of the signature.
    // The signer answers the HttpRequest it cloned (typed as the interface).
    const signed = (await signer.sign(request)) as HttpRequest;
    const { response } = await handler.handle(signed, { abortSignal: deadline.signal });
    const text = await readAnswer(response.body as IncomingMessage, deadline.signal);
    return { status: response.statusCode, text };
  } catch (error) {
    throw transportError(error, deadline.signal);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One action of SSM's JSON protocol (`AmazonSSM.<action>`), signed by the SDK's SigV4 signer and
 * sent by its HTTP handler, with timeouts and retries. The answer is parsed JSON of no known
 * shape (`unknown`): the caller checks it.
 */
export async function ssmCall(action: string, input: unknown, options: SsmCallOptions): Promise<unknown> {
  // Checked before anything is built from it: the host name, the signature's scope.
  if (!isRegion(options.region)) throw new SsmCallError("InvalidRegion", "the region is not an AWS region name", false);
  const url = options.endpoint === undefined ? ssmEndpoint(options.region) : new URL(options.endpoint);
  const request = requestOf(url, action, JSON.stringify(input));
  const signer = new SignatureV4({ credentials: options.credentials, region: options.region, service: "ssm", sha256: Sha256 });
  // One call per cold start: no connection is kept for a next one.
  const handler = new NodeHttpHandler({ connectionTimeout: SSM_TIMEOUTS.connectionMs, httpAgent: { keepAlive: false }, httpsAgent: { keepAlive: false } });
  try {
    for (let attempts = 1; ; attempts++) {
      try {
        const { status, text } = await attempt(handler, signer, request);
        if (status !== 200) throw errorOf(status, text);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new SsmCallError("MalformedAnswer", "the answer is not JSON", false);
        }
      } catch (error) {
        const retryable = error instanceof SsmCallError && error.retryable;
        if (!retryable || attempts >= SSM_TIMEOUTS.attempts) throw error;
        // Full jitter over 100 ms, 200 ms: as the SDK's standard retry strategy backs off.
        await pause(Math.random() * 100 * 2 ** (attempts - 1));
      }
    }
  } finally {
    handler.destroy();
  }
}
