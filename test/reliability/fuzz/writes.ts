/**
 * Which writes the service accepted, exactly: method, the record key each one names, and its
 * answer. The oracle "a refused request changes nothing" is then checked per record: a record that
 * changed must carry the key of one accepted write, not merely appear somewhere in some answer.
 */
export interface AcceptedWrite {
  method: string;
  path: string;
  /** The key values this write named: the path's segments after the collection and the key fields of the record it answered with. */
  key: string[];
  answer: string;
}

/** Attributes that make up the sample models' record keys (Post slug, User uuid, PostTag post+tag, UserFollow follower+following, ...). */
const KEY_FIELDS = ["slug", "uuid", "post", "tag", "follower", "following"];

function keyValues(record: unknown): string[] {
  if (typeof record !== "object" || record === null) return [];
  return KEY_FIELDS.flatMap((f) => {
    const v = (record as Record<string, unknown>)[f];
    return typeof v === "string" || typeof v === "number" ? [String(v)] : [];
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A 2xx REST answer as a write, or undefined when it is none: GET/HEAD/OPTIONS read, and `PUT
 * /<collection>` with no key is the query endpoint. `pathname` is the path as the URL parser
 * resolved it (what the server routed).
 */
export function restWrite(method: string, pathname: string, status: number, answer: string): AcceptedWrite | undefined {
  if (status < 200 || status >= 300 || ["GET", "HEAD", "OPTIONS"].includes(method)) return undefined;
  const segments = pathname
    .split("/")
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  if (segments.length <= 1 && method === "PUT") return undefined;
  return { method, path: pathname, key: [...new Set([...segments.slice(1), ...keyValues(parse(answer))])], answer };
}

/** The mutations a 2xx GraphQL answer reports as done, one write each, keyed by the record each returned. */
export function graphqlWrites(status: number, answer: string): AcceptedWrite[] {
  if (status < 200 || status >= 300) return [];
  const body = parse(answer);
  const data = (typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { data?: unknown }).data : undefined) as
    Record<string, unknown> | null | undefined;
  if (!data) return [];
  return Object.entries(data)
    .filter(([field, value]) => /^(create|update|patch|delete)/.test(field) && value !== null && value !== undefined)
    .map(([field, value]) => ({ method: `mutation ${field}`, path: "/graphql", key: keyValues(value), answer }));
}

/** A changed record's key (its table's key attributes, in key-schema order) is explained when one accepted write named every part of it. */
export function explainedBy(recordKey: string[], writes: AcceptedWrite[]): AcceptedWrite | undefined {
  return writes.find((w) => recordKey.length > 0 && recordKey.every((part) => w.key.includes(part)));
}
