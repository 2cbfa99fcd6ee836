/**
 * Why a flow or token login was refused. The callback puts the code in `redirects.failure`'s
 * `reason` parameter; POST auth/idp/token answers it in the error body. Never a stack, never the
 * provider's own words (they may echo what an attacker sent).
 */
export type IdpReason =
  | "STATE_INVALID"
  | "STATE_USED"
  | "PROVIDER_ERROR"
  | "CODE_REJECTED"
  | "ID_TOKEN_INVALID"
  | "HOSTED_DOMAIN_REFUSED"
  | "EMAIL_DOMAIN_NOT_ALLOWED"
  | "EMAIL_NOT_VERIFIED"
  | "PROVIDER_UNAVAILABLE"
  | "LOGIN_FAILED";

export class IdpRefusal extends Error {
  override name = "IdpRefusal";
  constructor(
    readonly reason: IdpReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}
