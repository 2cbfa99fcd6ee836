import { ValidationError } from "../core/errors.ts";
import { HttpError } from "./errors.ts";
import type { HttpRequest } from "./request.ts";

/** Our own limit, well under Lambda's 6 MB synchronous payload. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * No model nests this deep; a body that does is refused before parsing, so that no recursive
 * walk further in (stripping, validation, marshalling) can overflow the stack on it.
 */
export const MAX_BODY_DEPTH = 64;

/** The deepest nesting of objects and arrays in a JSON text, strings skipped (one linear pass). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) deepest = Math.max(deepest, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

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
  if (jsonDepth(text) > MAX_BODY_DEPTH) {
    throw new ValidationError([{ path: "/", message: `nests deeper than ${MAX_BODY_DEPTH} levels` }], "Body nested too deeply");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "invalid JSON";
    throw new ValidationError([{ path: "/", message: reason }], "Malformed JSON body");
  }
}
