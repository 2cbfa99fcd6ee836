/** Content codings this service can answer with, best first when the client ranks them equally. */
export type Coding = "br" | "gzip" | "identity";

const PREFERENCE: readonly Coding[] = ["br", "gzip", "identity"];

/**
 * The coding to answer with for an Accept-Encoding header (RFC 9110 12.5.3): the client's highest
 * q-value among br and gzip, ties broken by our preference; identity when neither is acceptable
 * (identity is always acceptable unless refused explicitly, which we do not honour with a 406:
 * a browser never sends that).
 */
export function chooseCoding(header: string | undefined): Coding {
  if (!header) return "identity";
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: Coding): number => weights.get(coding) ?? weights.get("*") ?? 0;
  let best: Coding = "identity";
  let bestWeight = 0;
  for (const coding of PREFERENCE) {
    if (coding === "identity") break;
    const w = weightOf(coding);
    if (w > bestWeight) {
      best = coding;
      bestWeight = w;
    }
  }
  return best;
}
