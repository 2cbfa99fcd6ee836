// @ts-check
// `authPublicKeys`: the public halves of the access-token signing keys, a value rendered into
// every function's configuration. Checked at packaging, since a private key given here by mistake
// would be published in the template.

/**
 * Undefined when `value` is a usable public Ed25519 JWK set; else what is wrong, in words.
 * @param {unknown} value
 * @returns {string | undefined}
 */
export function publicKeysProblem(value) {
  if (value === undefined || value === null || value === "" || value === "null")
    return "is missing: the public set the functions that only verify tokens check them with";
  /** @type {{ keys?: unknown } | undefined} */
  let parsed;
  try {
    parsed = typeof value === "string" ? JSON.parse(value) : value;
  } catch {
    return "is not JSON";
  }
  /** @type {{ kty?: unknown, crv?: unknown, x?: unknown }[]} */
  const keys = Array.isArray(parsed?.keys) ? parsed.keys : [parsed];
  if (keys.length === 0) return "holds no key";
  // Never echo the value: this is the check that catches a private key given by mistake.
  if (keys.some((key) => key && typeof key === "object" && "d" in key))
    return "holds a private key (d): give the public set only, and keep the private key in SSM";
  if (!keys.every((key) => key && key.kty === "OKP" && key.crv === "Ed25519" && typeof key.x === "string"))
    return "must hold Ed25519 public JWKs (kty OKP, crv Ed25519, x)";
  return undefined;
}
