/** GraphQL-over-HTTP media types, best first when the client ranks them equally. */
export const GRAPHQL_RESPONSE = "application/graphql-response+json";
export const JSON_MEDIA = "application/json";

interface Range {
  type: string;
  q: number;
}

function ranges(accept: string): Range[] {
  return accept.split(",").flatMap((part) => {
    const [type = "", ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!type) return [];
    const q = params.find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    return [{ type, q: Number.isFinite(weight) ? weight : 0 }];
  });
}

function weight(list: Range[], media: string): number {
  const [major] = media.split("/");
  const exact = list.find((r) => r.type === media);
  if (exact) return exact.q;
  const partial = list.find((r) => r.type === `${major}/*`) ?? list.find((r) => r.type === "*/*");
  // A wildcard alone picks the legacy type below, so old clients keep their 200s.
  return partial ? partial.q * 0.999 : 0;
}

/**
 * The response media type for an Accept header: no header means application/json (the spec's
 * legacy rule); undefined means neither is acceptable (406).
 */
export function negotiate(accept: string | undefined): typeof GRAPHQL_RESPONSE | typeof JSON_MEDIA | undefined {
  if (!accept || accept.trim() === "") return JSON_MEDIA;
  const list = ranges(accept);
  const modern = weight(list, GRAPHQL_RESPONSE);
  const legacy = weight(list, JSON_MEDIA);
  if (modern <= 0 && legacy <= 0) return undefined;
  if (modern === legacy) return list.some((r) => r.type === GRAPHQL_RESPONSE) ? GRAPHQL_RESPONSE : JSON_MEDIA;
  return modern > legacy ? GRAPHQL_RESPONSE : JSON_MEDIA;
}

/** A browser navigating to the endpoint: it asks for HTML before any JSON. */
export function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const list = ranges(accept);
  const html = list.find((r) => r.type === "text/html")?.q ?? 0;
  return html > 0 && html >= Math.max(weight(list, GRAPHQL_RESPONSE), list.find((r) => r.type === JSON_MEDIA)?.q ?? 0);
}
