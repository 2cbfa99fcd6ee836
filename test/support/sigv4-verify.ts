import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { HttpRequest } from "@smithy/core/protocols";
import { Hash } from "@smithy/core/serde";
import { SignatureV4 } from "@smithy/signature-v4";

/**
 * What a service does with a SigV4-signed request it received: reads the Authorization header's
 * scope and signed headers, signs the request as received (method, path, query, the signed
 * headers, the body) with AWS's own signer and the caller's secret, and compares the signatures.
 * The secret loader's tests (test/core/secrets-load.test.ts) prove with it that the call to the
 * secret store is signed for the region, the service and the session, whatever builds it.
 */
export interface ReceivedRequest {
  method: string;
  /** The request target as received: path and query (`req.url`). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Verified {
  /** Whether the signature is the one AWS's signer gives for this request and secret. */
  valid: boolean;
  accessKeyId: string;
  /** `YYYYMMDD`, from the credential scope. */
  date: string;
  region: string;
  service: string;
  /** Lower-case, in the order the header lists them. */
  signedHeaders: string[];
}

class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super("sha256", secret);
  }
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** `20260101T000000Z` as an instant. */
function instant(amzDate: string): Date {
  const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!at) throw new Error(`x-amz-date is not a SigV4 date: ${amzDate}`);
  const [year, month, day, hours, minutes, seconds] = at.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  if (value === undefined) throw new Error(`the signed header ${name} was not received`);
  return Array.isArray(value) ? value.join(",") : value;
}

/** Checks `received` against the secret of `credentials`: throws only on a malformed Authorization. */
export async function verifySigV4(
  received: ReceivedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
): Promise<Verified> {
  const match = AUTHORIZATION.exec(headerValue(received.headers, "authorization"));
  if (!match) throw new Error("the Authorization header is not a SigV4 one");
  const [, accessKeyId, date, region, service, signedList, signature] = match as unknown as [string, string, string, string, string, string, string];
  const signedHeaders = signedList.split(";");
  const url = new URL(received.url, "http://received.invalid");
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
  const headers = Object.fromEntries(signedHeaders.map((name) => [name, headerValue(received.headers, name)]));
  const request = new HttpRequest({ method: received.method, hostname: headers.host ?? "", path: url.pathname, query, headers, body: received.body });
  // Signed without a session token: the received one, when signed, is among the headers.
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey: credentials.secretAccessKey },
    region,
    service,
    sha256: Sha256,
    // Adds no x-amz-content-sha256 of its own: the received one, when signed, is among the headers.
    applyChecksum: false,
  });
  const signedAt = instant(headerValue(received.headers, "x-amz-date"));
  const expected = /Signature=([0-9a-f]{64})$/.exec(String((await signer.sign(request, { signingDate: signedAt })).headers.authorization))?.[1] ?? "";
  // The signer takes a sent x-amz-content-sha256 as the payload's hash: the body must have it.
  const payloadHash = received.headers["x-amz-content-sha256"];
  const valid =
    accessKeyId === credentials.accessKeyId &&
    (payloadHash === undefined || payloadHash === createHash("sha256").update(received.body, "utf8").digest("hex")) &&
    expected.length === signature.length &&
    timingSafeEqual(Buffer.from(expected), Buffer.from(signature)) &&
    date === headerValue(received.headers, "x-amz-date").slice(0, 8);
  return { valid, accessKeyId, date, region, service, signedHeaders };
}
