import { createHmac, hkdfSync } from "node:crypto";

/**
 * Names a subscription document within its topic: what a pack entry carries instead of the
 * document. Whoever can make two documents share a name can have one served in place of the other
 * (its filter and selection run as the other's subscriber), so the name is keyed: an HMAC under a
 * key derived from the application secret, which a client cannot compute offline.
 */
export type DocumentReference = (topic: string, document: string) => string;

/** 128 bits of HMAC-SHA256, base64url: a birthday search needs about 2^64 documents, and the key. */
const REFERENCE_BYTES = 16;

/**
 * References keyed by the application secret (`secret`, read once, at the first reference: a
 * function without packs never needs it). The topic is part of what is keyed, so a reference of
 * one topic says nothing about another's.
 */
export function keyedReferences(secret: () => string): DocumentReference {
  let key: Buffer | undefined;
  return (topic, document) => {
    key ??= Buffer.from(hkdfSync("sha256", secret(), "realtime-packs", "subscription-document-reference-v1", 32));
    return createHmac("sha256", key).update(topic).update("\u0000").update(document).digest().subarray(0, REFERENCE_BYTES).toString("base64url");
  };
}

/**
 * Where a document may be stored: its reference, then a few others derived from it. A second
 * document with the same reference (by chance, about 2^-64 a pair; or a reference function that
 * collides, as the tests inject) takes the next free one, so each subscriber is still served its
 * own document; none is ever replaced under a name an entry already carries.
 */
export function referenceProbes(reference: string): string[] {
  return [reference, `${reference}.1`, `${reference}.2`, `${reference}.3`];
}
