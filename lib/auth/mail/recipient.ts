import { sha256Hex } from "../crypto.ts";

/**
 * How a recipient appears in every mail log line, in every stage: never the address, but the
 * start of its SHA-256 (the per-address throttle row is `mail:<the whole digest>`), so an operator
 * who is given an address can find its lines and no one reading the logs learns addresses.
 */
export function loggedRecipient(address: string): string {
  return `sha256:${sha256Hex(address).slice(0, 16)}`;
}

/** An error about a mail, with the address replaced wherever the sender's message repeats it. */
export function withoutAddress(error: unknown, address: string): unknown {
  if (!(error instanceof Error) || address === "") return error;
  const scrub = (text: string) => text.split(address).join(loggedRecipient(address));
  if (!error.message.includes(address) && !(error.stack ?? "").includes(address)) return error;
  error.message = scrub(error.message);
  if (error.stack) error.stack = scrub(error.stack);
  return error;
}
