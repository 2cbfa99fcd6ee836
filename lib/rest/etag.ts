import { hash } from "node:crypto";
import { PreconditionFailedError } from "../core/errors.ts";

/**
 * `"<version>-<view>"`: the record's version, then a digest of the representation this caller
 * receives. Two callers who see one record redacted differently (an owner sees `email`, others do
 * not) get different tags, so a shared cache or an If-None-Match never serves one the other's
 * view. Writes are still conditioned on the version alone (the part before the dash).
 */
export function etagOf(version: number, view: unknown): string {
  const digest = hash("sha256", canonicalJson(view), "base64url").slice(0, 16);
  return `"${version}-${digest}"`;
}

/**
 * The view as JSON with object keys sorted (JSON.stringify's output otherwise): DynamoDB returns
 * attributes in an order of its own, unlike the record a create answers, and one representation
 * must have one tag however its keys came out. Written out directly: a GET computes it every time.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value) ?? "";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : canonicalJson(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const inner = record[key];
    if (inner === undefined || typeof inner === "function" || typeof inner === "symbol") continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(inner)}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * The version an `If-Match` header pins a write to: undefined when absent or `*` (the record must
 * merely exist). A list or a tag that is not one of ours can never match: 412.
 */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const value = ifMatch.trim();
  if (value === "*") return undefined;
  const match = /^(?:W\/)?"(\d{1,15})(?:-[A-Za-z0-9_-]{16})?"$/.exec(value);
  if (!match) throw new PreconditionFailedError("If-Match does not name a version of this record");
  return Number(match[1]);
}

/** `If-None-Match` on a GET: true when the client already holds this version, in this view. */
export function notModified(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v === tag || v === `W/${tag}`;
  });
}
