import type { Figures } from "./lib/figures.ts";

/** The v3 -> v4 auth migration is part of the authentication service, which does not exist yet. */
export async function migrationSection(figures: Figures): Promise<void> {
  figures.gap("migration", "auth v3 -> v4 migration throughput", "lib/auth (and its migration) is not written yet: nothing to run; measure it here once `webda auth migrate` exists");
}
