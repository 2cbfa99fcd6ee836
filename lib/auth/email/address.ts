import { ValidationError } from "../../core/errors.ts";

/**
 * One spelling per mailbox before any lookup, throttle or mail (else each spelling gets its own throttle): a plain dot-atom local
 * part (RFC 5322 atext, single dots inside) at a hostname of two or more LDH labels. Everything
 * else is refused rather than mapped, because each mapping would be a second spelling of one
 * mailbox: quoted local parts (`"victim"@x`), comments, IP literals (`a@[127.0.0.1]`), a trailing
 * dot (`a@x.com.`), a dotted-quad "domain" (`a@127.0.0.1`), non-ASCII (an internationalised domain
 * is given in its `xn--` form). Sub-addresses (`a+tag@x`) are distinct mailboxes to us: the
 * service-wide mail budget, not this function, bounds mail sent to them.
 */
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = new RegExp(`^${ATEXT}(?:\\.${ATEXT})*$`);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level label of letters (or an `xn--` one): rules out all-numeric "domains" such as 10.0.0.1. */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

function refuse(message: string): never {
  throw new ValidationError([{ path: "/email", message }], "The email address is not valid");
}

/** Trimmed and lowercased (one account per mailbox, whatever the case typed), then checked; a 400 naming `/email` otherwise. */
export function canonicalEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_ADDRESS) refuse(`must be at most ${MAX_ADDRESS} characters`);
  const at = email.indexOf("@");
  if (at < 0 || at !== email.lastIndexOf("@")) refuse("must be one local part, one @ and one domain");
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length === 0 || local.length > MAX_LOCAL || !LOCAL.test(local)) {
    refuse("must have a plain local part: letters, digits and !#$%&'*+/=?^_`{|}~- separated by single dots (no quotes)");
  }
  const labels = domain.split(".");
  if (domain.length > MAX_DOMAIN || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TOP_LABEL.test(labels[labels.length - 1] as string)) {
    refuse("must have a host name as domain (such as example.com: no IP address, no trailing dot)");
  }
  return email;
}
