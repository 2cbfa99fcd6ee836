import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { identKey } from "../../lib/auth/idents.ts";
import { decodeIdentKey, issuerTag, legacyIdpSub } from "../../lib/auth/idp-keys.ts";

/**
 * Ident keys are injective: no `sub`, whatever it holds, spells another identity's key. Subs are
 * drawn from pieces that collided before (`@`, `:`, `%`, `#`, the issuers' own tags, escapes).
 */
const ISSUERS = ["https://a.example", "https://b.example/tenant", "https://accounts.example.com"];
const TAGS = ISSUERS.map(issuerTag);
const piece = fc.oneof(
  fc.constantFrom("@", ":", "#", "%", "%40", "%3A", "%25", ":idp", "_idp", ":email", ...TAGS.map((t) => `@${t}`)),
  fc.string({ minLength: 1, maxLength: 4 }),
);
const sub = fc.array(piece, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""));
const triple = fc.record({ provider: fc.constantFrom("idp" as const, "email" as const), issuer: fc.constantFrom(...ISSUERS), uid: sub });
type Triple = { provider: "idp" | "email"; issuer: string; uid: string };

const keyOf = (t: Triple) => (t.provider === "idp" ? identKey("idp", t.uid, t.issuer) : identKey("email", t.uid));
const sameIdentity = (a: Triple, b: Triple) =>
  a.provider === b.provider && (a.provider === "idp" ? a.issuer === b.issuer && a.uid === b.uid : a.uid.trim().toLowerCase() === b.uid.trim().toLowerCase());

describe("ident keys", () => {
  it("distinct (provider, issuer, subject) triples give distinct keys", () => {
    fc.assert(
      fc.property(triple, triple, (a, b) => {
        if (!sameIdentity(a, b)) expect(keyOf(a)).not.toBe(keyOf(b));
      }),
      { numRuns: 20_000 },
    );
  });

  it("a sub built from another identity's key still keys apart from it", () => {
    fc.assert(
      fc.property(sub, fc.constantFrom(...ISSUERS), fc.constantFrom(...ISSUERS), (victim, at, other) => {
        // The crafted sub: the victim's own key, less its provider suffix.
        const crafted = identKey("idp", victim, other).slice(0, -":idp".length);
        expect(identKey("idp", crafted, at)).not.toBe(identKey("idp", victim, other));
      }),
    );
  });

  it("decoding a key returns its triple", () => {
    fc.assert(
      fc.property(triple, (t) => {
        const decoded = decodeIdentKey(keyOf(t));
        if (t.provider === "idp") expect(decoded).toEqual({ provider: "idp", issuerTag: issuerTag(t.issuer), providerUid: t.uid });
        else expect(decoded).toEqual({ provider: "email", providerUid: t.uid.trim().toLowerCase() });
      }),
      { numRuns: 5_000 },
    );
  });

  it("keeps an ordinary sub readable, as it was keyed before escaping", () => {
    expect(identKey("idp", "248289761001", ISSUERS[0] as string)).toBe(`248289761001@${TAGS[0]}:idp`);
    expect(identKey("idp", "a@b:c%d", ISSUERS[0] as string)).toBe(`a%40b%3Ac%25d@${TAGS[0]}:idp`);
  });

  it("takes only a row that names no issuer for legacy, whatever its key reads like", () => {
    fc.assert(
      fc.property(sub, fc.constantFrom(...ISSUERS), (s, issuer) => {
        const keyed = { uuid: identKey("idp", s, issuer), provider: "idp", providerUid: s, issuer };
        expect(legacyIdpSub(keyed)).toBeUndefined();
        // The same key read as an issuerless row's: legacy only when it says so.
        const spelled = keyed.uuid.slice(0, -":idp".length);
        expect(legacyIdpSub({ ...keyed, issuer: undefined })).toBeUndefined();
        expect(legacyIdpSub({ uuid: keyed.uuid, provider: "idp", providerUid: spelled })).toBe(spelled);
        expect(legacyIdpSub({ uuid: `${s}_idp`, _type: "idp" })).toBe(s);
      }),
    );
  });
});
