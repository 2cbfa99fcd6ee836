/**
 * JSON with every object's keys sorted (JSON.stringify's output otherwise), so that one value has
 * one text however its keys came out: DynamoDB returns attributes in an order of its own, a client
 * sends variables in any order. Written out directly: a GET's ETag computes it every time.
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
