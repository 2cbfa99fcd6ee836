/**
 * Sends an OTLP/HTTP body to X-Ray's OTLP traces endpoint (`https://xray.<region>.amazonaws.com/v1/traces`),
 * signed with AWS's signer (@smithy/signature-v4, service `xray`) over the SDK's HTTP handler, both
 * already in every bundle for the AWS SDK. The endpoint authorises it as `xray:PutTraceSegments`
 * and needs CloudWatch Transaction Search on in the account (docs/operating.md, "Tracing").
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, OpenTelemetry's own setting, names another receiver (the
 * tests' loopback one). Never throws: a failed export loses the trace, not the request.
 */
import { HttpRequest } from "@smithy/core/protocols";
import { Hash } from "@smithy/core/serde";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";
import { log } from "../log.ts";

/**
 * Bounds what a slow or unreachable endpoint adds to a traced invocation (the export is awaited):
 * the answer's by `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` (OpenTelemetry's setting, milliseconds) where set.
 */
const CONNECTION_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_000;

/**
 * The endpoint traces go to: the one named, else X-Ray's in the function's region when running in
 * Lambda (a real runtime sets AWS_EXECUTION_ENV; `npm start` and the tests do not, and send nothing).
 */
export function tracesEndpoint(env: NodeJS.ProcessEnv = process.env): URL | undefined {
  try {
    const named = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    if (named) return new URL(named);
    return env.AWS_REGION && env.AWS_EXECUTION_ENV ? new URL(`https://xray.${env.AWS_REGION}.amazonaws.com/v1/traces`) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One function's exporter: its HTTP handler (a keep-alive pool), its signer and whether it has
 * warned, kept across its invocations as a Lambda instance keeps them, by the function that
 * invocationHandler built (../tracing.ts, FunctionTraces), never by this module: two functions
 * built in one process (the tests) export, sign and warn each on their own.
 */
export class TraceExporter {
  private handler: NodeHttpHandler | undefined;
  /** Kept while the credentials and region hold: the signer caches its signing key per day. */
  private signer: { key: string; signer: SignatureV4 } | undefined;
  private warned = false;

  /** Once per function: what an operator needs to see why traces are missing, and nothing of the body. */
  private warnOnce(reason: string): void {
    if (this.warned) return;
    this.warned = true;
    log.warn("trace export failed", { reason });
  }

  async send(body: string, endpoint: URL): Promise<void> {
    try {
      const region = process.env.AWS_REGION ?? "us-east-1";
      const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = process.env;
      if (!accessKeyId || !secretAccessKey) return this.warnOnce("no credentials in the environment");
      const key = `${region}\n${accessKeyId}\n${secretAccessKey}\n${sessionToken ?? ""}`;
      if (this.signer?.key !== key) {
        const credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
        this.signer = { key, signer: new SignatureV4({ service: "xray", region, credentials, sha256: Hash.bind(null, "sha256") }) };
      }
      const request = new HttpRequest({
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
        path: endpoint.pathname,
        method: "POST",
        headers: { host: endpoint.host, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        body,
      });
      const signed = await this.signer.signer.sign(request);
      const timeout = Number(process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) || REQUEST_TIMEOUT_MS;
      this.handler ??= new NodeHttpHandler({ connectionTimeout: Math.min(CONNECTION_TIMEOUT_MS, timeout), requestTimeout: timeout });
      const { response } = await this.handler.handle(signed as HttpRequest);
      // The answer's body is drained, not read: the socket goes back to the keep-alive pool.
      (response.body as NodeJS.ReadableStream | undefined)?.resume();
      if (response.statusCode >= 300) this.warnOnce(`the endpoint answered ${response.statusCode}`);
    } catch (error) {
      this.warnOnce((error as { name?: string } | undefined)?.name ?? "Error");
    }
  }
}
