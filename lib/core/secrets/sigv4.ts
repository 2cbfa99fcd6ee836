import { createHash, createHmac } from "node:crypto";

/**
 * AWS Signature Version 4 for one JSON-protocol POST (the secret store's GetParameters call): the
 * whole AWS SDK client would add ~80 KB to every function's bundle for this one call, while the
 * signature is a few hashes node:crypto already has. test/core/secrets-load.test.ts checks it
 * against the SDK's own signer.
 */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const sha256Hex = (data: string): string => createHash("sha256").update(data, "utf8").digest("hex");
const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();

/** The `X-Amz-Date` form of an instant: 20260101T000000Z. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/**
 * The headers of a signed POST to `url` (path `/`, no query): the given ones, Host, X-Amz-Date,
 * the session token when there is one, and Authorization.
 */
export function signPost(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { credentials: AwsCredentials; region: string; service: string; now: Date },
): Record<string, string> {
  const { credentials, region, service } = options;
  const date = amzDate(options.now);
  const all: Record<string, string> = { ...headers, host: url.host, "x-amz-date": date };
  if (credentials.sessionToken) all["x-amz-security-token"] = credentials.sessionToken;
  const names = Object.keys(all)
    .map((name) => name.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(all).map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")]));
  const signedHeaders = names.join(";");
  const canonical = ["POST", url.pathname || "/", "", ...names.map((name) => `${name}:${lower[name]}`), "", signedHeaders, sha256Hex(body)].join("\n");
  const scope = `${date.slice(0, 8)}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", date, scope, sha256Hex(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date.slice(0, 8)), region), service), "aws4_request");
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  return { ...all, authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}` };
}
