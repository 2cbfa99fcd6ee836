import { hash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
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
