import { ValidationError } from "../core/errors.ts";
import { HttpError } from "./errors.ts";
import type { HttpRequest } from "./request.ts";

/** Our own limit, well under Lambda's 6 MB synchronous payload. */
export const MAX_BODY_BYTES = 1024 * 1024;

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * The JSON body of a request, or undefined when there is none. A body in another media type is
 * 415, one over 1 MiB is 413, malformed JSON is 400 with the parser's reason.
 */
export function readJsonBody(request: HttpRequest): unknown {
  const text = request.body;
  if (text === undefined || text === "") return undefined;
  if (Buffer.byteLength(text, "utf8") > MAX_BODY_BYTES) {
    throw new HttpError(413, "PAYLOAD_TOO_LARGE", `The body exceeds ${MAX_BODY_BYTES} bytes`);
  }
  if (!isJsonMediaType(request.headers["content-type"])) {
    throw new HttpError(415, "UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "invalid JSON";
    throw new ValidationError([{ path: "/", message: reason }], "Malformed JSON body");
  }
}
