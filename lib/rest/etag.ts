import { PreconditionFailedError } from "../core/errors.ts";

export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * The version an `If-Match` header pins a write to: undefined when absent or `*` (the record must
 * merely exist). A list or a tag that is not one of ours can never match: 412.
 */
export function expectedVersion(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return undefined;
  const value = ifMatch.trim();
  if (value === "*") return undefined;
  const match = /^(?:W\/)?"(\d{1,15})"$/.exec(value);
  if (!match) throw new PreconditionFailedError("If-Match does not name a version of this record");
  return Number(match[1]);
}

/** `If-None-Match` on a GET: true when the client already holds this version. */
export function notModified(ifNoneMatch: string | undefined, version: number): boolean {
  if (ifNoneMatch === undefined) return false;
  const tag = etagOf(version);
  return ifNoneMatch.split(",").some((t) => {
    const v = t.trim();
    return v === "*" || v === tag || v === `W/${tag}`;
  });
}
