import { isIPv6 } from "node:net";
import { sha256Hex } from "../crypto.ts";

/**
 * Whose share of the mail budget a request spends: the caller's address as API Gateway saw the
 * connection (`requestContext.http.sourceIp` in payload 2.0, `identity.sourceIp` in 1.0; never a
 * header, which a caller writes), an IPv6 address by its /64 (one subscriber's usual allocation,
 * which a caller could otherwise walk), stored only as a digest. A request without one shares a
 * single "unknown" bucket.
 */
export function mailSource(sourceIp: string | undefined): string {
  if (!sourceIp) return "unknown";
  return sha256Hex(isIPv6(sourceIp) ? ipv6Prefix64(sourceIp) : sourceIp).slice(0, 32);
}

/** The first four groups of an IPv6 address, written out ("2001:db8:0:0"). */
function ipv6Prefix64(address: string): string {
  const [head = "", tail] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(8 - left.length - right.length, 0)).fill("0"), ...right];
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":");
}
