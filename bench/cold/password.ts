import { PasswordBehavior } from "../../lib/core/behaviors/password.ts";
import { OWASP_SCRYPT_FLOOR } from "../../lib/auth/email/options.ts";
import type { Figure } from "../lib/figures.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";

/**
 * What the email provider's default hash cost (OWASP's scrypt floor) adds to a login: one verify
 * of a stored hash, in this process. A login is this plus a few DynamoDB calls.
 */
export async function passwordCheck(runs: number): Promise<Figure> {
  const behavior = new PasswordBehavior();
  await behavior.set("correct horse battery", OWASP_SCRYPT_FLOOR);
  const times: number[] = [];
  for (let i = 0; i < Math.max(3, Math.min(runs, 10)); i++) {
    const started = performance.now();
    await behavior.verify("correct horse battery", OWASP_SCRYPT_FLOOR);
    times.push(performance.now() - started);
  }
  progress("login password check measured");
  const { ln, r, p } = OWASP_SCRYPT_FLOOR;
  return {
    section: "cold start",
    measure: `login password check (scrypt ln=${ln}, r=${r}, p=${p}: ${(128 * r * 2 ** ln) / 2 ** 20} MiB)`,
    unit: "ms",
    higherIsBetter: false,
    ours: { name: "login password check", summary: summarise(times) },
    note: "OWASP password storage cheat sheet's scrypt floor (N=2^17, r=8, p=1); the email provider's default `password.cost`",
  };
}
