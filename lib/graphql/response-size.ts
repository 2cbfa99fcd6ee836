/**
 * The last guard on a GraphQL answer's size. Lists share one byte budget per response
 * (lib/core/list.ts), but records read by key are not counted: fifteen aliased `Post(slug)` of
 * 600 KB records make 9 MB, and Lambda refuses an answer over 6 MB (the client would see API
 * Gateway's 502). Such an answer is replaced by one error the client can act on.
 */

/** Lambda's 6 MB response payload, less room for the status and headers around the body. */
export const MAX_ANSWER_BYTES = 6_000_000 - 16 * 1024;

/**
 * Bytes `text` takes inside Lambda's response payload, where the body is itself a JSON string
 * (so every `"` and `\` of it is escaped once more). Short texts are not measured.
 */
function payloadBytes(text: string): number {
  if (text.length * 3 < MAX_ANSWER_BYTES / 2) return 0;
  return Buffer.byteLength(JSON.stringify(text));
}

/** `text`, or the text of a `RESPONSE_TOO_LARGE` answer when Lambda could not return it. */
export function boundedAnswer(text: string): string {
  const bytes = payloadBytes(text);
  if (bytes <= MAX_ANSWER_BYTES) return text;
  const message = `The response would take ${bytes} bytes; at most ${MAX_ANSWER_BYTES} can be answered (ask for fewer records, fields or aliases, or follow continuation tokens)`;
  return JSON.stringify({ data: null, errors: [{ message, extensions: { code: "RESPONSE_TOO_LARGE", limit: MAX_ANSWER_BYTES, actual: bytes } }] });
}
